import { Button, Group, Pagination, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useEffect, useState } from 'react';
import { loadDevicePage } from '../api/device-search';
import { ErrorAlert, Link, Loading, useLoad } from '../components/common';
import { navigate } from '../router';

const ORDERS = ['device_id', '-device_id', 'name', '-name', 'created_at', '-created_at', 'dev_eui', '-dev_eui'];
const FIELDS = 'name,created_at';
/** Typing pauses this long before the search is asked for. */
const SEARCH_DELAY_MS = 300;

/**
 * The IS's List with paging (`limit`, `page`, X-Total-Count) and ordering; with a term in the
 * search box, the IS's end device search (`GET /search/applications/{id}/devices?query=…`: ID,
 * name, description or EUI contains it), paged and ordered the same, its total the matches.
 */
export function DeviceList({ app }: { app: string }) {
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState('20');
  const [order, setOrder] = useState('device_id');
  const [search, setSearch] = useState('');
  const [term, setTerm] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setTerm(search.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [search]);
  // Another term, other matches: back to their first page.
  useEffect(() => setPage(1), [term]);
  const { data, error, loading } = useLoad(
    () => loadDevicePage(app, { search: term, fieldMask: FIELDS, order, limit: Number(limit), page }),
    [app, term, page, limit, order],
  );
  const shown = data?.devices ?? [];
  const pages = Math.max(1, Math.ceil((data?.total ?? 0) / Number(limit)));
  return (
    <Stack>
      <Group justify="space-between" align="end">
        <Group align="end">
          <TextInput
            label="Search devices"
            description="ID, name, description or EUI contains"
            value={search}
            onChange={(e) => setSearch(e.currentTarget.value)}
          />
          <Select label="Order" data={ORDERS} value={order} onChange={(v) => v && (setOrder(v), setPage(1))} w={150} allowDeselect={false} />
          <Select
            label="Per page"
            data={['10', '20', '50', '100']}
            value={limit}
            onChange={(v) => v && (setLimit(v), setPage(1))}
            w={100}
            allowDeselect={false}
          />
        </Group>
        <Button onClick={() => navigate(`/applications/${encodeURIComponent(app)}/devices/new`)}>Register device</Button>
      </Group>
      <ErrorAlert error={error} />
      {loading && <Loading />}
      <Text size="sm" c="dimmed" data-testid="device-total">
        {data ? `${data.total} ${data.total === 1 ? 'device' : 'devices'}` : ''}
      </Text>
      <Table.ScrollContainer minWidth={420}>
        <Table striped highlightOnHover data-testid="device-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Device ID</Table.Th>
              <Table.Th>DevEUI</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Created</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((d) => (
              <Table.Tr key={d.ids?.device_id}>
                <Table.Td>
                  <Link to={`/applications/${encodeURIComponent(app)}/devices/${encodeURIComponent(d.ids?.device_id ?? '')}`}>{d.ids?.device_id}</Link>
                </Table.Td>
                <Table.Td>{d.ids?.dev_eui}</Table.Td>
                <Table.Td>{d.name}</Table.Td>
                <Table.Td>{typeof d.created_at === 'string' ? new Date(d.created_at).toLocaleString() : ''}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      <Pagination total={pages} value={page} onChange={setPage} />
    </Stack>
  );
}
