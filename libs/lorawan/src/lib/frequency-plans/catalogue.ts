import { deepFreeze } from '../deep-freeze';
import { getBand, rx1DownlinkChannels } from './bands';
import { PLAN_SPECS, type PlanSpec, type PlanSubBand } from './plans';
import type { Band, BaseFrequency, FrequencyPlan, SubBand } from './types';

/**
 * The frequency plans by The Things Stack's IDs (`TheThingsNetwork/lorawan-frequency-plans`), with
 * the band's facts filled in where a plan leaves them out: RX2, max EIRP, RX1 delay, class B
 * frequencies, sub-bands, and the downlink channels of US915/AU915.
 */
function resolve(spec: PlanSpec): FrequencyPlan {
  const band = getBand(spec.band_id);
  const { rx2, max_eirp, sub_bands, ...rest } = spec;
  const maxEirp = max_eirp ?? band.default_max_eirp;
  // Bands with downlink channels of their own: US915/AU915's eight (every plan lists them all, as TTS's
  // files), CN470's 48 of which a plan lists those its uplink channels answer on (channel mod 48).
  const downlinkChannels =
    band.downlink_channels && band.downlink_channels.length > 8
      ? rx1DownlinkChannels(
          band,
          spec.uplink_channels.map((c) => c.frequency),
        )
      : band.downlink_channels;
  return {
    ...rest,
    ...(downlinkChannels ? { downlink_channels: downlinkChannels } : {}),
    rx2: { frequency: rx2?.frequency ?? band.default_rx2.frequency, data_rate_index: rx2?.data_rate_index ?? band.default_rx2.data_rate_index },
    max_eirp: maxEirp,
    rx1_delay: band.rx1_delay,
    sub_bands: resolveSubBands(band, sub_bands ?? [], maxEirp),
    ...(band.ping_slot_frequency ? { ping_slot_frequency: band.ping_slot_frequency } : {}),
    ...(band.beacon_frequency ? { beacon_frequency: band.beacon_frequency } : {}),
  };
}

/**
 * The plan's sub-bands (duty cycle 1 and the plan's max EIRP unless it says otherwise), then the
 * band's that overlap none of them, so the band's limits still hold where the plan says nothing
 * (e.g. the RX2 channel of a plan that covers other frequencies).
 */
function resolveSubBands(band: Band, own: readonly PlanSubBand[], maxEirp: number): SubBand[] {
  const planSubBands = own.map((s) => ({
    min_frequency: s.min_frequency,
    max_frequency: s.max_frequency,
    duty_cycle: s.duty_cycle ?? 1,
    max_eirp: s.max_eirp ?? maxEirp,
  }));
  const overlaps = (a: SubBand, b: SubBand) => Number(a.min_frequency) <= Number(b.max_frequency) && Number(b.min_frequency) <= Number(a.max_frequency);
  return [...planSubBands, ...band.sub_bands.filter((s) => !planSubBands.some((p) => overlaps(p, s)))];
}

const PLANS: readonly FrequencyPlan[] = deepFreeze(PLAN_SPECS.map(resolve));

const BY_ID = new Map(PLANS.map((p) => [p.id, p]));

export const FREQUENCY_PLAN_IDS: readonly string[] = Object.freeze(PLANS.map((p) => p.id));

export function getFrequencyPlan(id: string): FrequencyPlan | undefined {
  return BY_ID.get(id);
}

export function listFrequencyPlans(): FrequencyPlan[] {
  return [...PLANS];
}

/** TTS `FrequencyPlanDescription`: what `Configuration.ListFrequencyPlans` tells about a plan. */
export interface FrequencyPlanDescription {
  id: string;
  base_id?: string;
  name: string;
  base_frequency: BaseFrequency;
  band_id: string;
}

/** The plans' descriptions, those of one base frequency (MHz) and/or band when given (TTS `ListFrequencyPlans`). */
export function describeFrequencyPlans(filter: { base_frequency?: number; band_id?: string } = {}): FrequencyPlanDescription[] {
  return PLANS.filter((p) => (!filter.base_frequency || p.base_frequency === filter.base_frequency) && (!filter.band_id || p.band_id === filter.band_id)).map(
    (p) => ({ id: p.id, ...(p.base_id ? { base_id: p.base_id } : {}), name: p.name, base_frequency: p.base_frequency, band_id: p.band_id }),
  );
}

const COMBINED = new Map<string, FrequencyPlan>();

/**
 * The plan of a gateway that lists several (TTS: up to eight, all of one band; a gateway with
 * several concentrators): the first plan, with the uplink channels of every plan (the first plan's
 * first where two give one frequency) and their sub-bands: each plan's own (identical ones once),
 * then the band's that overlap none of them (a plan fills in the band's where it says nothing, and
 * another plan's own sub-band replaces those). Undefined when a plan is unknown, the plans are of
 * different bands, or two plans' own sub-bands overlap without being identical (TTS refuses them:
 * `frequency_plans_overlap_sub_band`).
 */
export function combineFrequencyPlans(ids: readonly string[]): FrequencyPlan | undefined {
  if (ids.length <= 1) return getFrequencyPlan(ids[0] ?? '');
  const key = ids.join(',');
  const cached = COMBINED.get(key);
  if (cached) return cached;
  const plans = ids.map((id) => getFrequencyPlan(id));
  const [first] = plans;
  if (!first || plans.some((p) => !p || p.band_id !== first.band_id)) return undefined;
  const all = plans as FrequencyPlan[];
  const range = (s: SubBand) => `${s.min_frequency}-${s.max_frequency}`;
  const bandRanges = new Set(getBand(first.band_id).sub_bands.map(range));
  const candidates = firstOfEach(
    all.flatMap((p) => p.sub_bands),
    range,
  );
  const own = candidates.filter((s) => !bandRanges.has(range(s)));
  const overlaps = (a: SubBand, b: SubBand) => Number(a.min_frequency) < Number(b.max_frequency) && Number(b.min_frequency) < Number(a.max_frequency);
  if (own.some((a, i) => own.slice(i + 1).some((b) => overlaps(a, b)))) return undefined;
  const subBands = [...own, ...candidates.filter((b) => bandRanges.has(range(b)) && !own.some((s) => overlaps(s, b)))];
  const combined = deepFreeze({
    ...first,
    uplink_channels: firstOfEach(
      all.flatMap((p) => p.uplink_channels),
      (c) => c.frequency,
    ),
    sub_bands: subBands,
    // CN470 plans list only the downlink channels their own uplink channels answer on.
    ...(first.downlink_channels
      ? {
          downlink_channels: firstOfEach(
            all.flatMap((p) => p.downlink_channels ?? []),
            (c) => c.frequency,
          ),
        }
      : {}),
  });
  COMBINED.set(key, combined);
  return combined;
}

/** The first item of each key, in order. */
function firstOfEach<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => !seen.has(key(item)) && seen.add(key(item)));
}
