import { Badge, Button, Group, Modal, Paper, Select, SimpleGrid, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import { deleteDevice, type DeviceEdit, type EndDevice, loadDevice, type MergedDevice, type Registry, updateDevice } from '../api/devices';
import { uplinkOf, type Uplink } from '../api/uplinks';
import { ErrorAlert, Json, Link, Loading, useLoad } from '../components/common';
import { navigate } from '../router';
import { useEvents } from './events';
import { FORMATTERS } from './register-device';
import { FrequencyPlanSelect } from '../components/frequency-plan-select';
import { StoredUplinks } from '../components/stored-uplinks';
import { SignalChart, UplinkTable } from './uplinks';

function EditDevice({ app, dev, merged, onSaved }: { app: string; dev: string; merged: MergedDevice; onSaved: () => void }) {
  const d = merged.device as EndDevice & { frequency_plan_id?: string; formatters?: { up_formatter?: string } };
  const [opened, { open, close }] = useDisclosure();
  const [edit, setEdit] = useState<DeviceEdit>({
    name: d.name ?? '',
    description: d.description ?? '',
    frequency_plan_id: d.frequency_plan_id ?? 'EU_863_870_TTN',
    up_formatter: d.formatters?.up_formatter ?? 'FORMATTER_NONE',
  });
  const [error, setError] = useState<unknown>();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await updateDevice(app, dev, d.ids, edit);
      close();
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <>
      <Button variant="default" onClick={open}>
        Edit
      </Button>
      <Modal opened={opened} onClose={close} title={`Edit ${dev}`}>
        <form onSubmit={(e) => void submit(e)}>
          <Stack>
            <TextInput label="Name" value={edit.name} onChange={(e) => setEdit({ ...edit, name: e.currentTarget.value })} />
            <TextInput label="Description" value={edit.description} onChange={(e) => setEdit({ ...edit, description: e.currentTarget.value })} />
            <FrequencyPlanSelect value={edit.frequency_plan_id} onChange={(id) => setEdit({ ...edit, frequency_plan_id: id })} />
            <Select label="Uplink formatter" data={FORMATTERS} value={edit.up_formatter} onChange={(v) => v && setEdit({ ...edit, up_formatter: v })} />
            <ErrorAlert error={error} />
            <Button type="submit">Save</Button>
          </Stack>
        </form>
      </Modal>
    </>
  );
}

function RegistryParts({ merged }: { merged: MergedDevice }) {
  return (
    <Group gap="xs">
      {(['is', 'js', 'ns', 'as'] as Registry[]).map((r) => {
        const part = merged.parts[r];
        const color = 'device' in part ? 'green' : 'missing' in part ? 'gray' : 'red';
        return (
          <Badge key={r} color={color} variant="light">
            {r.toUpperCase()}: {'device' in part ? 'registered' : 'missing' in part ? 'not registered' : `error ${part.error.status}`}
          </Badge>
        );
      })}
    </Group>
  );
}

/** A device merged from the IS, JS, NS and AS; keys only on request; MAC state, session and recent uplinks. */
export function DevicePage({ app, dev }: { app: string; dev: string }) {
  const [keys, setKeys] = useState(false);
  const { data, error, loading, reload } = useLoad(() => loadDevice(app, dev, keys), [app, dev, keys]);
  const [deleteError, setDeleteError] = useState<unknown>();
  const { events } = useEvents([{ device_ids: { device_id: dev, application_ids: { application_id: app } } }], ['as.up.data.forward'], 50);
  const uplinks = events.map(uplinkOf).filter((u): u is Uplink => u !== undefined);
  const remove = async () => {
    if (!window.confirm(`Delete ${dev} from the AS, NS, JS and IS?`)) return;
    try {
      await deleteDevice(app, dev);
      navigate(`/applications/${encodeURIComponent(app)}/devices`);
    } catch (err) {
      setDeleteError(err);
    }
  };
  const d = data?.device as (EndDevice & Record<string, unknown>) | undefined;
  const { mac_state, session, recent_uplinks, root_keys, pending_session, ...rest } = d ?? {};
  const keyErrors = data ? (['js', 'ns', 'as'] as const).map((r) => data.parts[r]).filter((p) => 'error' in p) : [];
  return (
    <Stack>
      <Text size="sm">
        <Link to={`/applications/${encodeURIComponent(app)}/devices`}>{app}</Link> / {dev}
      </Text>
      <Group justify="space-between">
        <Title order={2}>{d?.name || dev}</Title>
        {data && (
          <Group>
            <EditDevice key={JSON.stringify(data.device)} app={app} dev={dev} merged={data} onSaved={reload} />
            <Button color="red" variant="light" onClick={() => void remove()}>
              Delete
            </Button>
          </Group>
        )}
      </Group>
      <ErrorAlert error={error} />
      <ErrorAlert error={deleteError} title="Delete failed" />
      {loading && <Loading />}
      {data && <RegistryParts merged={data} />}
      <Switch label="Show root and session keys" checked={keys} onChange={(e) => setKeys(e.currentTarget.checked)} />
      {keyErrors.map((p, i) => 'error' in p && <ErrorAlert key={i} error={p.error} title="A registry refused the keys" />)}
      {d && (
        <SimpleGrid cols={{ base: 1, md: 2 }}>
          <Paper withBorder p="sm">
            <Title order={5}>Device</Title>
            <Json value={rest} />
          </Paper>
          <Paper withBorder p="sm">
            <Title order={5}>Session</Title>
            <Json value={{ session, ...(pending_session ? { pending_session } : {}), ...(root_keys ? { root_keys } : {}) }} />
          </Paper>
          <Paper withBorder p="sm">
            <Title order={5}>MAC state (NS)</Title>
            <Json value={mac_state ?? null} />
          </Paper>
          <Paper withBorder p="sm">
            <Title order={5}>Recent uplinks (NS)</Title>
            <Json value={recent_uplinks ?? []} />
          </Paper>
        </SimpleGrid>
      )}
      <Title order={4}>Uplinks (live)</Title>
      <SignalChart uplinks={uplinks} />
      <UplinkTable uplinks={uplinks} />
      <StoredUplinks app={app} dev={dev} />
    </Stack>
  );
}
