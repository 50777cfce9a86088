import { readFileSync } from 'node:fs';

import { describe, expect, it } from 'vitest';

import { CONFIG_VARIABLES } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** compose.yaml's services as raw text blocks, by name (the file is kept flat enough for this). */
function composeServices(): Record<string, string> {
  const text = read('compose.yaml');
  const body = text.slice(text.indexOf('\nservices:\n') + 11, text.indexOf('\nvolumes:'));
  return Object.fromEntries(body.split(/\n(?= {2}\w)/).map((block) => [/^ {2}(\w+):/.exec(block)?.[1] ?? '', block]));
}

const jsonLine = (text: string, key: string): unknown => JSON.parse(new RegExp(`^\\s*${key}:? (\\[.*\\])$`, 'm').exec(text)?.[1] ?? 'null');

describe('the deployment files', () => {
  const dockerfile = read('Dockerfile');
  const services = composeServices();

  it('runs bin/pitwall.js as a non-root user, with a pitwall command as the default', () => {
    expect(jsonLine(dockerfile, 'ENTRYPOINT')).toEqual(['node', 'bin/pitwall.js']);
    expect(jsonLine(dockerfile, 'CMD')).toEqual(['worker']);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^RUN npm install --omit=dev/m);
    expect(/^ARG NODE_VERSION=(\S+)$/m.exec(dockerfile)?.[1]).toBe(read('.nvmrc').trim());
  });

  it('runs a one-shot migrate before the worker, both valid pitwall commands', async () => {
    // Services under a profile (observe: Prometheus and Grafana) start only when asked for.
    const defaults = Object.keys(services).filter((name) => !/^ {4}profiles:/m.test(services[name]!));
    expect(defaults.sort()).toEqual(['migrate', 'postgres', 'worker']);
    expect(jsonLine(services.migrate!, 'command')).toEqual(['migrate']);
    expect(jsonLine(services.worker!, 'command')).toEqual(['worker']);
    expect(services.worker).toMatch(/migrate:\n\s+condition: service_completed_successfully/);
    for (const command of ['migrate', 'worker']) {
      const help = await runCli([command, '--help'], {});
      expect({ command, code: help.code }).toEqual({ command, code: 0 });
      expect(help.stdout).toMatch(new RegExp(`^ {2}${command} `, 'm'));
    }
  });

  it('sets only variables pitwall reads, and gives the worker time to drain', () => {
    const known = new Set(CONFIG_VARIABLES.map((v) => v.env));
    for (const name of ['migrate', 'worker']) {
      const env = services[name]!.slice(services[name]!.indexOf('environment:'));
      const vars = [...env.matchAll(/^ {6}([A-Z_]+):/gm)].map((m) => m[1]);
      expect(vars.length).toBeGreaterThan(0);
      expect(vars.filter((v) => !known.has(v!))).toEqual([]);
    }
    const port = /PITWALL_HTTP_PORT: "(\d+)"/.exec(services.worker!)?.[1];
    expect(services.worker).toContain(`http://127.0.0.1:${port}/healthz`);
    const timeoutMs = Number(/PITWALL_SHUTDOWN_TIMEOUT_MS: "(\d+)"/.exec(services.worker!)?.[1]);
    const graceS = Number(/stop_grace_period: (\d+)s/.exec(services.worker!)?.[1]);
    expect(graceS * 1000).toBeGreaterThan(timeoutMs);
  });

  it("opens the worker's endpoint to the container's every interface, saying why and naming the token", () => {
    // The default (loopback) would be the container's own, which no published port reaches.
    expect(CONFIG_VARIABLES.find((v) => v.env === 'PITWALL_HTTP_HOST')?.default).toBe('127.0.0.1');
    const files = { Dockerfile: dockerfile, 'compose.yaml': services.worker!, 'compose.scale.yaml': read('compose.scale.yaml') };
    for (const [name, text] of Object.entries(files)) {
      const setting = /^\s*PITWALL_HTTP_HOST(=|: )"?0\.0\.0\.0"?$/m.exec(text);
      expect(setting, name).not.toBeNull();
      // The comment just above the setting (the Dockerfile's sits above its ENV's first line).
      const comment = text.slice(0, setting!.index).split('\n').slice(-8).filter((l) => l.trim().startsWith('#')).join(' ');
      expect(comment, name).toMatch(/PITWALL_HTTP_TOKEN/);
    }
  });
});
