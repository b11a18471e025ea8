import { AU_915_PLANS, US_915_PLANS } from './americas';
import { ASIA_PLANS } from './asia';
import { CHINA_PLANS } from './china';
import { EUROPE_PLANS, RUSSIA_PLANS } from './europe';
import type { PlanSpec } from './plan-spec';

export type { PlanSpec, PlanSubBand } from './plan-spec';

/**
 * Every plan the stack ships, in the order of TTS's index (`frequency-plans.yml`). Not here: the
 * 2.4 GHz draft (`ISM_2400_3CH_DRAFT2`) and Morocco's draft (`MA_869_870_DRAFT`), whose bands the
 * stack does not have.
 */
export const PLAN_SPECS: readonly PlanSpec[] = [...EUROPE_PLANS, ...US_915_PLANS, ...AU_915_PLANS, ...CHINA_PLANS, ...ASIA_PLANS, ...RUSSIA_PLANS];
