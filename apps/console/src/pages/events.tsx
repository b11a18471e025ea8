import { Badge, Button, Code, Group, Stack, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { type EntityIdentifiers, followEvents, type StackEvent, type StreamState } from '../api/events';
import { ErrorAlert } from '../components/common';

const KEEP = 200;

export function entityOf(event: StackEvent): string {
  const ids = event.identifiers?.[0];
  return ids?.device_ids?.device_id ?? ids?.application_ids?.application_id ?? ids?.gateway_ids?.gateway_id ?? ids?.user_ids?.user_id ?? '';
}

/** Follows the event stream of `identifiers` (newest first), reopening it when it ends; `names` filters them as the API does. */
export function useEvents(identifiers: EntityIdentifiers[], names: string[] | undefined, tail = 20) {
  const [events, setEvents] = useState<StackEvent[]>([]);
  const [state, setState] = useState<StreamState>({ state: 'connecting' });
  const key = JSON.stringify([identifiers, names, tail]);
  useEffect(() => {
    setEvents([]);
    return followEvents({ identifiers, names, tail }, (e) => setEvents((all) => [e, ...all].slice(0, KEEP)), setState);
    // identifiers and names are compared by value through `key`
  }, [key]);
  return { events, state };
}

export function StreamBadge({ state }: { state: StreamState }) {
  const color = state.state === 'open' ? 'green' : state.state === 'failed' ? 'red' : 'yellow';
  return (
    <Badge color={color} data-testid="stream-state">
      {state.state}
    </Badge>
  );
}

export function EventsView({ identifiers }: { identifiers: EntityIdentifiers[] }) {
  const [filter, setFilter] = useState('');
  const [names, setNames] = useState<string[] | undefined>();
  const { events, state } = useEvents(identifiers, names);
  const [open, setOpen] = useState<string>();
  const apply = () => {
    const list = filter
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    setNames(list.length ? list : undefined);
  };
  return (
    <Stack>
      <Group align="end">
        <TextInput
          label="Event names"
          description="comma-separated; exact names or /regex/"
          placeholder="/^end_device\./, as.up.data.forward"
          value={filter}
          onChange={(e) => setFilter(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && apply()}
          w={360}
          maw="100%"
        />
        <Button onClick={apply}>Filter</Button>
        <StreamBadge state={state} />
      </Group>
      {'error' in state && <ErrorAlert error={state.error} title="Event stream" />}
      <Table.ScrollContainer minWidth={420}>
        <Table data-testid="event-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Entity</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {events.map((e) => (
              <Table.Tr
                key={e.unique_id ?? `${e.time}${e.name}`}
                onClick={() => setOpen(open === e.unique_id ? undefined : e.unique_id)}
                style={{ cursor: 'pointer' }}
              >
                <Table.Td>{new Date(e.time).toLocaleTimeString()}</Table.Td>
                <Table.Td>
                  <Text size="sm" ff="monospace">
                    {e.name}
                  </Text>
                  {open === e.unique_id && <Code block>{JSON.stringify(e, null, 2)}</Code>}
                </Table.Td>
                <Table.Td>{entityOf(e)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {events.length === 0 && state.state === 'open' && <Text c="dimmed">Waiting for events…</Text>}
    </Stack>
  );
}
