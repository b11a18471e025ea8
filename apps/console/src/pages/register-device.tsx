import { Button, Paper, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { type FormEvent, useState } from 'react';
import { type OtaaRegistration, registerDevice } from '../api/devices';
import { ErrorAlert } from '../components/common';
import { navigate } from '../router';

export const FREQUENCY_PLANS = ['EU_863_870', 'EU_863_870_TTN', 'US_902_928_FSB_2', 'AU_915_928_FSB_2', 'AS_923', 'IN_865_867'];
export const FORMATTERS = ['FORMATTER_NONE', 'FORMATTER_CAYENNELPP', 'FORMATTER_JAVASCRIPT', 'FORMATTER_REPOSITORY'];
const MAC_VERSIONS = ['MAC_V1_0_2', 'MAC_V1_0_3', 'MAC_V1_0_4', 'MAC_V1_1'];
const PHY_VERSIONS = ['PHY_V1_0_2_REV_B', 'PHY_V1_0_3_REV_A', 'RP001_V1_0_4', 'RP001_V1_1_REV_B'];

/** Registers an OTAA device: IS create, JS (root key), NS, AS, undoing the earlier steps when one fails. */
export function RegisterDevicePage({ app }: { app: string }) {
  const [r, setR] = useState<OtaaRegistration>({
    device_id: '',
    dev_eui: '',
    join_eui: '0000000000000000',
    name: '',
    description: '',
    app_key: '',
    frequency_plan_id: 'EU_863_870_TTN',
    lorawan_version: 'MAC_V1_0_3',
    lorawan_phy_version: 'PHY_V1_0_3_REV_A',
    up_formatter: 'FORMATTER_NONE',
  });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const field = (name: keyof OtaaRegistration, label: string, extra: { placeholder?: string; required?: boolean } = {}) => (
    <TextInput label={label} value={r[name]} onChange={(e) => setR({ ...r, [name]: e.currentTarget.value })} {...extra} />
  );
  const choice = (name: keyof OtaaRegistration, label: string, data: string[]) => (
    <Select label={label} data={data} value={r[name]} onChange={(v) => v && setR({ ...r, [name]: v })} allowDeselect={false} />
  );
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await registerDevice(app, r);
      navigate(`/applications/${encodeURIComponent(app)}/devices/${encodeURIComponent(r.device_id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Paper withBorder p="md" maw={720}>
      <form onSubmit={(e) => void submit(e)}>
        <Stack>
          <Title order={3}>Register an OTAA device in {app}</Title>
          <Text size="sm" c="dimmed">
            Written to the Identity, Join, Network and Application Servers in that order.
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            {field('device_id', 'Device ID', { required: true, placeholder: 'dev1' })}
            {field('name', 'Name')}
            {field('dev_eui', 'DevEUI', { required: true, placeholder: '70B3D57ED005B59E' })}
            {field('join_eui', 'JoinEUI', { required: true })}
            {field('app_key', 'AppKey', { required: true, placeholder: '32 hex digits' })}
            {field('description', 'Description')}
            {choice('frequency_plan_id', 'Frequency plan', FREQUENCY_PLANS)}
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
