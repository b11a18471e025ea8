import {
  Badge,
  Button,
  Checkbox,
  Group,
  Modal,
  PasswordInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { type FormEvent, useState } from 'react';
import {
  deletePubSub,
  emptyForm,
  formOf,
  getPubSub,
  getPubSubFormats,
  listPubSubs,
  PUBSUB_MESSAGES,
  type PubSub,
  type PubSubForm,
  type QoS,
  savePubSub,
} from '../api/pubsub';
import { ErrorAlert, Loading, useLoad } from '../components/common';

const QOS: Array<{ value: QoS; label: string }> = [
  { value: 'AT_MOST_ONCE', label: 'At most once (0)' },
  { value: 'AT_LEAST_ONCE', label: 'At least once (1)' },
  { value: 'EXACTLY_ONCE', label: 'Exactly once (2)' },
];

/** Create (no `before`) or edit a Pub/Sub. Secrets are never filled in: an empty password keeps the stored one. */
function PubSubEditor({ app, before, onClose, onSaved }: { app: string; before?: PubSubForm; onClose: () => void; onSaved: () => void }) {
  const [form, setForm] = useState<PubSubForm>(before ?? emptyForm());
  const [error, setError] = useState<unknown>();
  const formats = useLoad(getPubSubFormats, []);
  const set = (patch: Partial<PubSubForm>) => setForm((f) => ({ ...f, ...patch }));
  const setTopic = (kind: keyof PubSubForm['messages'], topic: string | undefined) =>
    setForm((f) => {
      const messages = { ...f.messages };
      if (topic === undefined) delete messages[kind];
      else messages[kind] = topic;
      return { ...f, messages };
    });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await savePubSub(app, form, before);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };
  const mqtt = form.provider === 'mqtt';
  return (
    <form onSubmit={(e) => void submit(e)}>
      <Stack>
        <TextInput
          label="Pub/Sub ID"
          value={form.id}
          onChange={(e) => set({ id: e.currentTarget.value })}
          required
          disabled={!!before}
          placeholder="my-broker"
        />
        <SegmentedControl
          aria-label="Provider"
          value={form.provider}
          onChange={(v) => set({ provider: v as PubSubForm['provider'] })}
          data={[
            { value: 'nats', label: 'NATS' },
            { value: 'mqtt', label: 'MQTT' },
          ]}
        />
        <TextInput
          label="Server URL"
          value={form.server_url}
          onChange={(e) => set({ server_url: e.currentTarget.value })}
          required
          placeholder={mqtt ? 'mqtts://broker.example.com:8883' : 'nats://user:password@nats.example.com:4222'}
          description={
            !mqtt && before?.provider === 'nats'
              ? 'Its password is not shown: leave the URL as it is to keep it, or enter the whole URL with its password.'
              : undefined
          }
        />
        {mqtt && (
          <>
            <TextInput label="Client ID" value={form.client_id} onChange={(e) => set({ client_id: e.currentTarget.value })} maxLength={23} />
            <TextInput label="Username" value={form.username} onChange={(e) => set({ username: e.currentTarget.value })} />
            <PasswordInput
              label="Password"
              value={form.password}
              onChange={(e) => set({ password: e.currentTarget.value })}
              placeholder={before?.provider === 'mqtt' ? 'unchanged' : undefined}
              description={before?.provider === 'mqtt' ? 'Leave empty to keep the stored password.' : undefined}
              autoComplete="new-password"
            />
            <Select label="QoS" data={QOS} value={form.qos} onChange={(v) => v && set({ qos: v as QoS })} allowDeselect={false} />
          </>
        )}
        <Select
          label="Format"
          data={Object.entries(formats.data ?? { [form.format]: form.format }).map(([value, label]) => ({ value, label }))}
          value={form.format}
          onChange={(v) => v && set({ format: v })}
          allowDeselect={false}
        />
        <TextInput label="Base topic" value={form.base_topic} onChange={(e) => set({ base_topic: e.currentTarget.value })} />
        <Text size="sm" fw={500}>
          Messages
        </Text>
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
          {PUBSUB_MESSAGES.map(([kind, label, topic]) => (
            <Group key={kind} gap="xs" wrap="nowrap">
              <Checkbox
                label={label}
                checked={form.messages[kind] !== undefined}
                onChange={(e) => setTopic(kind, e.currentTarget.checked ? topic : undefined)}
                w={200}
              />
              <TextInput
                aria-label={`${label} topic`}
                size="xs"
                value={form.messages[kind] ?? ''}
                disabled={form.messages[kind] === undefined}
                onChange={(e) => setTopic(kind, e.currentTarget.value)}
              />
            </Group>
          ))}
        </SimpleGrid>
        <ErrorAlert error={error} />
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit">{before ? 'Save' : 'Create'}</Button>
        </Group>
      </Stack>
    </form>
  );
}

function ProviderCell({ pubsub }: { pubsub: PubSub }) {
  const provider = pubsub.mqtt ? 'MQTT' : pubsub.nats ? 'NATS' : '?';
  return (
    <Stack gap={0}>
      <Badge variant="light">{provider}</Badge>
      <Text size="xs" style={{ wordBreak: 'break-all' }}>
        {(pubsub.mqtt ?? pubsub.nats)?.server_url}
      </Text>
    </Stack>
  );
}

/** The application's Pub/Sub integrations (outbound NATS and MQTT): list, create, edit, delete. */
export function PubSubsView({ app }: { app: string }) {
  const { data, error, loading, reload } = useLoad(() => listPubSubs(app), [app]);
  const [opened, { open, close }] = useDisclosure();
  const [editing, setEditing] = useState<{ before?: PubSubForm }>({});
  const [actionError, setActionError] = useState<unknown>();
  const create = () => {
    setEditing({});
    open();
  };
  const edit = async (id: string) => {
    setActionError(undefined);
    try {
      setEditing({ before: formOf(await getPubSub(app, id)) });
      open();
    } catch (err) {
      setActionError(err);
    }
  };
  const remove = async (id: string) => {
    if (!window.confirm(`Delete the Pub/Sub ${id}?`)) return;
    setActionError(undefined);
    try {
      await deletePubSub(app, id);
      reload();
    } catch (err) {
      setActionError(err);
    }
  };
  const saved = () => {
    close();
    reload();
  };
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={4}>Pub/Subs</Title>
        <Button onClick={create}>Add Pub/Sub</Button>
      </Group>
      <ErrorAlert error={error} />
      <ErrorAlert error={actionError} />
      {loading && <Loading />}
      <Table.ScrollContainer minWidth={560}>
        <Table data-testid="pubsub-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Pub/Sub</Table.Th>
              <Table.Th>Provider</Table.Th>
              <Table.Th>Format</Table.Th>
              <Table.Th>Base topic</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {(data ?? []).map((p) => (
              <Table.Tr key={p.ids.pub_sub_id} data-testid={`pubsub-${p.ids.pub_sub_id}`}>
                <Table.Td>{p.ids.pub_sub_id}</Table.Td>
                <Table.Td>
                  <ProviderCell pubsub={p} />
                </Table.Td>
                <Table.Td>{p.format}</Table.Td>
                <Table.Td>{p.base_topic}</Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    <Button size="xs" variant="default" onClick={() => void edit(p.ids.pub_sub_id)}>
                      Edit
                    </Button>
                    <Button size="xs" color="red" variant="light" onClick={() => void remove(p.ids.pub_sub_id)}>
                      Delete
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {data && data.length === 0 && <Text c="dimmed">No Pub/Subs.</Text>}
      <Modal opened={opened} onClose={close} title={editing.before ? `Edit ${editing.before.id}` : 'Add Pub/Sub'} size="lg">
        {opened && <PubSubEditor app={app} before={editing.before} onClose={close} onSaved={saved} />}
      </Modal>
    </Stack>
  );
}
