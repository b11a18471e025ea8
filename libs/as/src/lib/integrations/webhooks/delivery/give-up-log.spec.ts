import { GiveUpLog } from './give-up-log';

describe('GiveUpLog', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('logs the first give-up of a webhook at once and the rest of the interval as one line', () => {
    const lines: string[] = [];
    const log = new GiveUpLog({ warn: (m: string) => lines.push(m) }, 1000);
    log.record('app/a', 'HTTP 404');
    log.record('app/a', 'HTTP 404');
    log.record('app/a', 'HTTP 410');
    log.record('app/b', 'HTTP 400');
    expect(lines).toEqual(['webhook app/a: delivery given up: HTTP 404', 'webhook app/b: delivery given up: HTTP 400']);
    jest.advanceTimersByTime(1000);
    expect(lines.slice(2)).toEqual(['webhook app/a: 2 more deliveries given up in 1 s; the last: HTTP 410']);
    log.record('app/a', 'HTTP 404');
    expect(lines).toHaveLength(4);
    log.close();
    expect(lines).toHaveLength(4);
  });
});
