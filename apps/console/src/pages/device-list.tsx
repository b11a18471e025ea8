import { Button, Group, Pagination, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { api } from '../api/client';
import { devicePath, type EndDevice } from '../api/devices';
import { ErrorAlert, Link, Loading, useLoad } from '../components/common';
import { navigate } from '../router';

const ORDERS = ['device_id', '-device_id', 'name', '-name', 'created_at', '-created_at', 'dev_eui', '-dev_eui'];
const FIELDS = 'name,created_at';

/**
 * The IS's List with paging (`limit`, `page`, X-Total-Count) and ordering. The stack has no
 * search route, so the search box filters the page shown by device ID prefix or name.
 */
export function DeviceList({ app }: { app: string }) {
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState('20');
  const [order, setOrder] = useState('device_id');
  const [search, setSearch] = useState('');
  const { data, error, loading } = useLoad(async () => {
    const res = await api<{ end_devices?: EndDevice[] }>('GET', devicePath('is', app), { query: { field_mask: FIELDS, order, limit, page } });
    return { devices: res.body.end_devices ?? [], total: Number(res.headers.get('x-total-count') ?? 0) };
  }, [app, page, limit, order]);
  const term = search.trim().toLowerCase();
  const shown = (data?.devices ?? []).filter((d) => !term || d.ids?.device_id.startsWith(term) || (d.name ?? '').toLowerCase().includes(term));
  const pages = Math.max(1, Math.ceil((data?.total ?? 0) / Number(limit)));
  return (
    <Stack>
      <Group justify="space-between" align="end">
        <Group align="end">
          <TextInput
            label="Search this page"
            description="ID prefix or name (the stack has no search route)"
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
        {data ? `${data.total} devices` : ''}
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
