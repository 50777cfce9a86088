import { describe, expect, it } from 'vitest';

import { apiUrl, startTestSimulator } from './helpers.js';

describe('jsoncallback', () => {
  it('wraps the JSON body in a call to the named function, as JavaScript', async () => {
    const sim = await startTestSimulator();
    const plain = await (await fetch(apiUrl(sim, '/v2/schedules/'))).text();
    const res = await fetch(apiUrl(sim, '/v2/schedules/', { jsoncallback: 'jQuery_123.done' }));
    expect(res.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
    expect(await res.text()).toBe(`jQuery_123.done(${plain})`);
  });

  it('wraps refused requests too', async () => {
    const sim = await startTestSimulator();
    const text = await (await fetch(`${sim.url}/v2/schedules/?jsoncallback=cb`)).text();
    expect(text).toMatch(/^cb\(\{"RequestValid":0,/);
    expect(text.endsWith('})')).toBe(true);
  });

  it('refuses a callback that is not an identifier, so nothing can be injected', async () => {
    const sim = await startTestSimulator();
    for (const name of ['alert(1);x', '1abc', '', 'a b']) {
      const res = await fetch(apiUrl(sim, '/v2/schedules/', { jsoncallback: name }));
      expect(res.status, name).toBe(400);
      expect(res.headers.get('content-type'), name).toBe('application/json; charset=utf-8');
    }
  });

  it('reads the callback parameter whatever the case of its name, as the ASP.NET upstream does', async () => {
    const sim = await startTestSimulator();
    const plain = await (await fetch(apiUrl(sim, '/v2/schedules/'))).text();
    for (const name of ['JsonCallback', 'JSONCALLBACK', 'jsonCallback']) {
      const res = await fetch(`${apiUrl(sim, '/v2/schedules/')}&${name}=cb`);
      expect(res.headers.get('content-type'), name).toBe('application/javascript; charset=utf-8');
      expect(await res.text(), name).toBe(`cb(${plain})`);
    }
  });

  it('refuses a bad callback name under any spelling of the parameter', async () => {
    const sim = await startTestSimulator();
    const res = await fetch(`${apiUrl(sim, '/v2/schedules/')}&JsonCallback=${encodeURIComponent('alert(1);x')}`);
    expect(res.status).toBe(400);
  });
});
