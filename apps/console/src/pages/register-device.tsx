import { Button, Paper, SegmentedControl, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { type AbpRegistration, type OtaaRegistration, type Registration, registerDevice, validateRegistration } from '../api/devices';
import { ErrorAlert } from '../components/common';
import { navigate } from '../router';
import { FrequencyPlanSelect } from '../components/frequency-plan-select';

export const FORMATTERS = ['FORMATTER_NONE', 'FORMATTER_CAYENNELPP', 'FORMATTER_JAVASCRIPT', 'FORMATTER_REPOSITORY'];
const MAC_VERSIONS = ['MAC_V1_0_2', 'MAC_V1_0_3', 'MAC_V1_0_4', 'MAC_V1_1'];
const PHY_VERSIONS = ['PHY_V1_0_2_REV_B', 'PHY_V1_0_3_REV_A', 'RP001_V1_0_4', 'RP001_V1_1_REV_B'];

type Form = Omit<OtaaRegistration, 'activation'> & Omit<AbpRegistration, 'activation'> & { activation: 'otaa' | 'abp' };

/** What the form sends: the fields of its activation mode. */
const registration = (f: Form): Registration => (f.activation === 'abp' ? { ...f, activation: 'abp' } : { ...f, activation: 'otaa' });

/**
 * Registers an OTAA device (IS create, JS root key, NS, AS) or an ABP device (IS create with the
 * DevAddr, NS session with the network keys, AS AppSKey: no JS), undoing the earlier steps when
 * one fails.
 */
export function RegisterDevicePage({ app }: { app: string }) {
  const [r, setR] = useState<Form>({
    activation: 'otaa',
    device_id: '',
    dev_eui: '',
    join_eui: '0000000000000000',
    dev_addr: '',
    name: '',
    description: '',
    app_key: '',
    nwk_key: '',
    f_nwk_s_int_key: '',
    s_nwk_s_int_key: '',
    nwk_s_enc_key: '',
    app_s_key: '',
    frequency_plan_id: 'EU_863_870_TTN',
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    up_formatter: 'FORMATTER_NONE',
  });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [submitted, setSubmitted] = useState(false);
  const invalid = validateRegistration(registration(r));
  type TextField = Exclude<keyof Form, 'activation'>;
  const field = (name: TextField, label: string, extra: { placeholder?: string; required?: boolean } = {}) => (
    <TextInput
      label={label}
      value={r[name]}
      onChange={(e) => setR({ ...r, [name]: e.currentTarget.value })}
      error={(submitted || r[name] !== '') && invalid[name]}
      {...extra}
    />
  );
  const choice = (name: TextField, label: string, data: string[]) => (
    <Select label={label} data={data} value={r[name]} onChange={(v) => v && setR({ ...r, [name]: v })} allowDeselect={false} />
  );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSubmitted(true);
    if (Object.keys(invalid).length > 0) return;
    setBusy(true);
    setError(undefined);
    try {
      await registerDevice(app, registration(r));
      navigate(`/applications/${encodeURIComponent(app)}/devices/${encodeURIComponent(r.device_id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const abp = r.activation === 'abp';
  const v11 = r.lorawan_version === 'MAC_V1_1';
  return (
    <Paper withBorder p="md" maw={720}>
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <Title order={3}>Register a device in {app}</Title>
          <Text size="sm" c="dimmed">
            {abp
              ? 'ABP: written to the Identity, Network and Application Servers in that order (no Join Server).'
              : 'OTAA: written to the Identity, Join, Network and Application Servers in that order.'}
          </Text>
          <SegmentedControl
            aria-label="Activation mode"
            data={[
              { value: 'otaa', label: 'OTAA' },
              { value: 'abp', label: 'ABP' },
            ]}
            value={r.activation}
            onChange={(v) => setR({ ...r, activation: v === 'abp' ? 'abp' : 'otaa' })}
          />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {field('device_id', 'Device ID', { required: true, placeholder: 'dev1' })}
            {field('name', 'Name')}
            {field('dev_eui', 'DevEUI', { required: !abp, placeholder: abp ? 'optional, 16 hex digits' : '70B3D57ED005B59E' })}
            {abp ? field('dev_addr', 'DevAddr', { required: true, placeholder: '8 hex digits' }) : field('join_eui', 'JoinEUI', { required: true })}
            {abp ? (
              <>
                {field('f_nwk_s_int_key', v11 ? 'FNwkSIntKey' : 'NwkSKey', { required: true, placeholder: '32 hex digits' })}
                {v11 && field('s_nwk_s_int_key', 'SNwkSIntKey', { required: true, placeholder: '32 hex digits' })}
                {v11 && field('nwk_s_enc_key', 'NwkSEncKey', { required: true, placeholder: '32 hex digits' })}
                {field('app_s_key', 'AppSKey', { required: true, placeholder: '32 hex digits' })}
              </>
            ) : (
              <>
                {field('app_key', 'AppKey', { required: true, placeholder: '32 hex digits' })}
                {v11 && field('nwk_key', 'NwkKey', { required: true, placeholder: '32 hex digits' })}
              </>
            )}
            {field('description', 'Description')}
            <FrequencyPlanSelect value={r.frequency_plan_id} onChange={(id) => setR({ ...r, frequency_plan_id: id })} />
            {choice('lorawan_version', 'LoRaWAN version', MAC_VERSIONS)}
            {choice('lorawan_phy_version', 'Regional parameters', PHY_VERSIONS)}
            {choice('up_formatter', 'Uplink formatter', FORMATTERS)}
          </SimpleGrid>
          <ErrorAlert error={error} />
          <Button type="submit" loading={busy}>
            Register
          </Button>
        </Stack>
      </form>
    </Paper>
  );
}
