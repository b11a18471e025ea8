import { toDomain, toEntity } from './gateway.mapper';
import type { IsGateway } from './gateway.model';

const base: IsGateway = { ids: { gateway_id: 'gtw1' }, created_at: '2024-05-01T10:00:00.000000Z', updated_at: '2024-05-01T10:00:00.000000Z' };

describe('gateway mapper', () => {
  it('stores the EUI upper-case in its column and the frequency plans once; frequency_plan_id is read back as the first', () => {
    const row = toEntity({
      ...base,
      ids: { gateway_id: 'gtw1', eui: '00800000a0000001' },
      frequency_plan_id: 'ignored',
      frequency_plan_ids: ['EU_863_870', 'EU_433'],
      enforce_duty_cycle: false,
      status_public: true,
    });
    expect(row.eui).toBe('00800000A0000001');
    expect(JSON.parse(row.fields)).toEqual({ frequency_plan_ids: ['EU_863_870', 'EU_433'], status_public: true });
    expect(toDomain(row)).toEqual({
      ...base,
      ids: { gateway_id: 'gtw1', eui: '00800000A0000001' },
      frequency_plan_id: 'EU_863_870',
      frequency_plan_ids: ['EU_863_870', 'EU_433'],
      status_public: true,
    });
  });

  it('a gateway without EUI has a NULL EUI (any number of them may exist)', () => {
    const row = toEntity(base);
    expect(row.eui).toBeNull();
    expect(toDomain(row)).toEqual(base);
  });
});
