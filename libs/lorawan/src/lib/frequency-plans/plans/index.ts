import { AU_915_PLANS, US_915_PLANS } from './americas';
import { ASIA_PLANS } from './asia';
import { EUROPE_PLANS, RUSSIA_PLANS } from './europe';
import type { PlanSpec } from './plan-spec';

export type { PlanSpec, PlanSubBand } from './plan-spec';

/**
 * Every plan the stack ships, in the order of TTS's index (`frequency-plans.yml`). Not here: the
 * CN470-510 plans (`CN_470_510_FSB_1`, `CN_470_510_FSB_11`; they go between the AU915 and the Asian
 * plans, in a `china.ts` beside these files, once `bands.ts` has the CN_470_510 band), the
 * 2.4 GHz draft (`ISM_2400_3CH_DRAFT2`) and Morocco's draft (`MA_869_870_DRAFT`), whose bands the
 * stack does not have.
 */
export const PLAN_SPECS: readonly PlanSpec[] = [...EUROPE_PLANS, ...US_915_PLANS, ...AU_915_PLANS, ...ASIA_PLANS, ...RUSSIA_PLANS];
