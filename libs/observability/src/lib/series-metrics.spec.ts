import { register } from 'prom-client';
import { SeriesCounter, SeriesHistogram } from './series-metrics';

describe('series metrics', () => {
  it('count per label set and render through prom-client’s registry as Prometheus text', async () => {
    const counter = new SeriesCounter('test_series_requests_total', 'Requests.', ['rpc', 'code']);
    const histogram = new SeriesHistogram('test_series_duration_seconds', 'Durations.', ['rpc'], [0.01, 0.1, 1]);
    const ok = counter.with('A.Get', 'OK');
    ok.inc();
    ok.inc(2);
    counter.with('A.Get', 'NotFound').inc();
    expect(counter.with('A.Get', 'OK')).toBe(ok);
    const get = histogram.with('A.Get');
    for (const s of [0.005, 0.05, 0.05, 0.5, 5]) get.observe(s);
    const text = await register.metrics();
    expect(text).toContain('# TYPE test_series_requests_total counter');
    expect(text).toContain('test_series_requests_total{rpc="A.Get",code="OK"} 3');
    expect(text).toContain('test_series_requests_total{rpc="A.Get",code="NotFound"} 1');
    expect(text).toContain('# TYPE test_series_duration_seconds histogram');
    expect(text).toContain('test_series_duration_seconds_bucket{le="0.01",rpc="A.Get"} 1');
    expect(text).toContain('test_series_duration_seconds_bucket{le="0.1",rpc="A.Get"} 3');
    expect(text).toContain('test_series_duration_seconds_bucket{le="1",rpc="A.Get"} 4');
    expect(text).toContain('test_series_duration_seconds_bucket{le="+Inf",rpc="A.Get"} 5');
    expect(text).toContain('test_series_duration_seconds_sum{rpc="A.Get"} 5.605');
    expect(text).toContain('test_series_duration_seconds_count{rpc="A.Get"} 5');
    expect(() => counter.with('only-one')).toThrow(/expected labels rpc, code/);
  });
});
