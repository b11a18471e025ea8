import { Select } from '@mantine/core';
import { frequencyPlanOptions, loadFrequencyPlans } from '../api/frequency-plans';
import { useLoad } from './common';

/** A frequency plan field offering the plans the stack lists (`GET /configuration/frequency-plans`), by band. */
export function FrequencyPlanSelect({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const { data, error } = useLoad(loadFrequencyPlans, []);
  return (
    <Select
      label="Frequency plan"
      data={frequencyPlanOptions(data ?? [], value)}
      value={value}
      onChange={(v) => v && onChange(v)}
      error={error ? 'The frequency plans could not be loaded' : undefined}
      searchable
      allowDeselect={false}
    />
  );
}
