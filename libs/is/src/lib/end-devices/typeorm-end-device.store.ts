import { type DataSource, type Repository } from 'typeorm';
import { sqlToTimestamp, timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, timestampTransformer } from '@lorawan/persistence';
import { EndDeviceEntity } from './end-device.entity';
import { toDomain, toEntity } from './end-device.mapper';
import type { CreateResult, EndDeviceStore, IsEndDevice, ListOptions } from './end-device.model';

/** Column each List order sorts by; every one is backed by an (application_id, column, device_id) index. */
const ORDER_COLUMNS: Record<ListOptions['order'], string> = {
  device_id: 'device_id',
  name: 'name',
  description: 'description_key',
  created_at: 'created_at',
  dev_eui: 'dev_eui',
  join_eui: 'join_eui',
};

const GET_SQL =
  'SELECT application_id, device_id, dev_eui, join_eui, name, description, description_key, created_at, updated_at, fields FROM end_devices WHERE application_id = ? AND device_id = ?';

const INSERT_COLUMNS = 'application_id, device_id, dev_eui, join_eui, name, description, description_key, created_at, updated_at, fields';
const INSERT_SQL = `INSERT INTO end_devices (${INSERT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** The entity's column values, as TypeORM writes them (timestamps through the column transformer). */
function insertParams(row: EndDeviceEntity): unknown[] {
  const time = (value: string) => timestampTransformer.to(value) as unknown;
  return [
    row.application_id,
    row.device_id,
    row.dev_eui,
    row.join_eui,
    row.name,
    row.description,
    row.description_key,
    time(row.created_at),
    time(row.updated_at),
    row.fields,
  ];
}

type RawEndDeviceRow = Omit<EndDeviceEntity, 'created_at' | 'updated_at'> & { created_at: string | Date; updated_at: string | Date };

/** A raw row (timestamps as the driver returns them) as the entity the mapper takes. */
function fromRaw(raw: RawEndDeviceRow): EndDeviceEntity {
  return Object.assign(new EndDeviceEntity(), raw, { created_at: sqlToTimestamp(raw.created_at), updated_at: sqlToTimestamp(raw.updated_at) });
}

/** The IS end-device store on TypeORM: MySQL/MariaDB in distributed mode, SQLite embedded. */
export class TypeOrmEndDeviceStore implements EndDeviceStore {
  private readonly repo: Repository<EndDeviceEntity>;

  constructor(private readonly dataSource: DataSource) {
    this.repo = dataSource.getRepository(EndDeviceEntity);
  }

  async create(device: IsEndDevice): Promise<CreateResult> {
    try {
      // One fixed statement (building it with TypeORM's InsertQueryBuilder cost a quarter of a
      // Create); every column is given, so there is nothing to reload after the insert.
      await this.dataSource.query(INSERT_SQL, insertParams(toEntity(device)));
      return { ok: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      const { device_id, application_ids, dev_eui, join_eui } = device.ids;
      if (await this.repo.exists({ where: { application_id: application_ids.application_id, device_id } })) return { ok: false, conflict: 'id' };
      const holder = dev_eui && join_eui ? await this.findByEuis(join_eui, dev_eui) : undefined;
      return { ok: false, conflict: 'euis', holder: holder?.ids };
    }
  }

  /** The hot path: one fixed primary-key statement (TypeORM's findOne rebuilds its query on every call). */
  async get(applicationId: string, deviceId: string): Promise<IsEndDevice | undefined> {
    const rows = (await this.dataSource.query(GET_SQL, [applicationId, deviceId])) as RawEndDeviceRow[];
    return rows.length > 0 ? toDomain(fromRaw(rows[0])) : undefined;
  }

  async findByEuis(joinEui: string, devEui: string): Promise<IsEndDevice | undefined> {
    const row = await this.repo.findOne({ where: { join_eui: joinEui, dev_eui: devEui } });
    return row ? toDomain(row) : undefined;
  }

  async list(applicationId: string, options: ListOptions): Promise<{ devices: IsEndDevice[]; total: number }> {
    const direction = options.descending ? 'DESC' : 'ASC';
    const column = ORDER_COLUMNS[options.order];
    const query = this.repo.createQueryBuilder('d').where('d.application_id = :applicationId', { applicationId });
    if (column !== 'device_id') query.orderBy(`d.${column}`, direction);
    query.addOrderBy('d.device_id', direction).limit(options.limit).offset(options.offset);
    const [rows, total] = await Promise.all([query.getMany(), this.repo.count({ where: { application_id: applicationId } })]);
    return { devices: rows.map(toDomain), total };
  }

  async replace(device: IsEndDevice, expectedUpdatedAt: string): Promise<boolean> {
    const row = toEntity(device);
    const result = await this.repo
      .createQueryBuilder()
      .update(EndDeviceEntity)
      .set({ name: row.name, description: row.description, description_key: row.description_key, updated_at: row.updated_at, fields: row.fields })
      .where('application_id = :a AND device_id = :d AND updated_at = :u', {
        a: row.application_id,
        d: row.device_id,
        u: timestampToSql(expectedUpdatedAt),
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async delete(applicationId: string, deviceId: string): Promise<boolean> {
    const result = await this.repo.delete({ application_id: applicationId, device_id: deviceId });
    return (result.affected ?? 0) > 0;
  }
}
