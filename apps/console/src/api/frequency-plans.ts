import { api } from './client';

/** TTS `FrequencyPlanDescription`, as `GET /api/v3/configuration/frequency-plans` lists it. */
export interface FrequencyPlanDescription {
  id: string;
  base_id?: string;
  name: string;
  base_frequency: number;
  band_id: string;
}

export interface PlanOption {
  value: string;
  label: string;
}

export interface PlanGroup {
  group: string;
  items: PlanOption[];
}

/** The stack's frequency plans (TTS `Configuration.ListFrequencyPlans`; open to anyone). */
export async function loadFrequencyPlans(): Promise<FrequencyPlanDescription[]> {
  return (await api<{ frequency_plans?: FrequencyPlanDescription[] }>('GET', '/configuration/frequency-plans')).body.frequency_plans ?? [];
}

/**
 * The choices of a frequency plan field: the plans by band, in the stack's order, each labelled
 * with its name and ID; the current value stays a choice even when the stack does not list it
 * (a plan ID stored before, or the list not loaded yet).
 */
export function frequencyPlanOptions(plans: readonly FrequencyPlanDescription[], current?: string): PlanGroup[] {
  const groups = new Map<string, PlanOption[]>();
  for (const p of plans) {
    const items = groups.get(p.band_id) ?? [];
    items.push({ value: p.id, label: `${p.name} (${p.id})` });
    groups.set(p.band_id, items);
  }
  const out = [...groups].map(([group, items]) => ({ group, items }));
  if (current && !plans.some((p) => p.id === current)) out.unshift({ group: 'Current', items: [{ value: current, label: current }] });
  return out;
}
