import { describe, expect, it } from 'vitest';

import { exposedNames, promqlMetricNames, templateQueryMetricNames } from './promql-names.js';

describe('promqlMetricNames', () => {
  it('finds the metrics of a query and nothing else', () => {
    const expr =
      'histogram_quantile(0.95, sum by (job, le) (rate(pitwall_run_duration_seconds_bucket{job=~"$job",status!="a b"}[$__rate_interval])))' +
      ' / on (job) group_left sum without (x) (time() - last_seen offset 5m) and bool up';
    expect(promqlMetricNames(expr).sort()).toEqual(['last_seen', 'pitwall_run_duration_seconds_bucket', 'up']);
  });

});

describe('templateQueryMetricNames', () => {
  it('reads the series of label_values(), not its label', () => {
    expect(templateQueryMetricNames('label_values(pitwall_runs_total{status="failed"}, job)')).toEqual(['pitwall_runs_total']);
    expect(templateQueryMetricNames('label_values(job)')).toEqual([]);
    expect(templateQueryMetricNames('query_result(sum by (job) (pitwall_job_running))')).toEqual(['pitwall_job_running']);
  });
});

describe('exposedNames', () => {
  it('declares the series a histogram is queried by, and labelled counters with no sample yet', () => {
    const text = '# HELP a_total x\n# TYPE a_total counter\n# TYPE h histogram\nh_bucket{le="1"} 0\n';
    expect([...exposedNames(text)].sort()).toEqual(['a_total', 'h', 'h_bucket', 'h_count', 'h_sum']);
  });
});
