import { describe, expect, it } from 'vitest';
import { AnswerPolicy, parseRule, PolicyError, type Behaviour } from './policy.js';

describe('sink rules', () => {
  it.each([
    ['/crm=503', { path: '/crm', behaviour: { status: 503 } }],
    ['/slow=delay:2000', { path: '/slow', behaviour: { delayMs: 2000 } }],
    ['/dead=hang', { path: '/dead', behaviour: { hang: true } }],
    ['/flaky=fail:0.25', { path: '/flaky', behaviour: { failRate: 0.25 } }],
    ['/busy=429,retry-after:5', { path: '/busy', behaviour: { status: 429, retryAfterS: 5 } }],
    ['/x/=retry-after:2, delay:10', { path: '/x', behaviour: { retryAfterS: 2, delayMs: 10 } }],
    ['/=500', { path: '/', behaviour: { status: 500 } }],
  ])('%s is read as its path and actions', (text, want) => {
    expect(parseRule(text)).toMatchObject(want);
  });

  it.each([
    ['crm=503', /PATH=ACTION/],
    ['/crm=', /PATH=ACTION/],
    ['/crm=teapot', /unknown action "teapot"/],
    ['/crm=99', /status is 200..599/],
    ['/crm=delay:soon', /not a number/],
    ['/crm=fail:2', /fail rate is 0..1/],
    ['/crm=200,retry-after:3', /Retry-After goes with a 429 or 503/],
  ])('%s is refused with a sentence that says why', (text, why) => {
    expect(() => parseRule(text)).toThrow(PolicyError);
    expect(() => parseRule(text)).toThrow(why);
  });
});

describe('sink answers', () => {
  const policy = (defaults: Behaviour, rules: string[] = [], seed = 1) => new AnswerPolicy(defaults, rules.map(parseRule), seed);

  it('answers 200 by default, the status asked for otherwise, and Retry-After alone means 503', () => {
    expect(policy({}).answer('/a')).toMatchObject({ status: 200, delayMs: 0, by: 'default: ok' });
    expect(policy({ status: 202 }).answer('/a').status).toBe(202);
    const busy = policy({ retryAfterS: 3 }).answer('/a');
    expect(busy).toMatchObject({ status: 503, headers: { 'retry-after': '3' } });
  });

  it('a rule covers its path and what lies under it, the longest rule wins, and what it does not set comes from the defaults', () => {
    const p = policy({ delayMs: 5 }, ['/crm=503', '/crm/slow=delay:50', '/dead=hang']);
    expect(p.answer('/crm')).toMatchObject({ status: 503, delayMs: 5, by: 'rule /crm: status' });
    expect(p.answer('/crm/orders')).toMatchObject({ status: 503 });
    expect(p.answer('/crmx')).toMatchObject({ status: 200, by: 'default: ok' });
    expect(p.answer('/crm/slow/x')).toMatchObject({ status: 200, delayMs: 50, by: 'rule /crm/slow: ok' });
    expect(p.answer('/dead')).toMatchObject({ status: null, by: 'rule /dead: hang' });
  });

  it('a fail rate fails that share of requests, and the same seed fails the same ones', () => {
    const run = (seed: number) => {
      const p = policy({ failRate: 0.3 }, [], seed);
      return Array.from({ length: 1000 }, () => p.answer('/a').status);
    };
    const first = run(42);
    expect(run(42)).toEqual(first);
    expect(run(43)).not.toEqual(first);
    const failures = first.filter((s) => s === 500).length;
    expect(failures).toBeGreaterThan(250);
    expect(failures).toBeLessThan(350);
  });

  it('only requests under a fail rate take numbers of the sequence', () => {
    const alone = policy({}, ['/f=fail:0.5'], 7);
    const mixed = policy({}, ['/f=fail:0.5'], 7);
    const a = Array.from({ length: 50 }, () => alone.answer('/f').status);
    const b = Array.from({ length: 50 }, () => (mixed.answer('/other'), mixed.answer('/f').status));
    expect(b).toEqual(a);
  });
});
