import type { DataSource, ObjectLiteral } from 'typeorm';
import { timestampToSql } from '@lorawan/api';
import { isDuplicateKeyError, runAtomically, type Statement } from '@lorawan/persistence';
import type { CollaboratedKind, Collaborator } from '../collaborators/collaborator.model';
import { deleteCollaboratorsOfPurged, insertCollaborator } from '../collaborators/typeorm-collaborator.store';
import type { EntityListQuery, Scope } from '../common/entity-list';
import { type EntityRow, EntityTable, type EntityTableSpec } from '../common/entity-table';
import type { EntityRowColumns } from './entity.mapper';
import type { CreateResult, EntityStore } from './entity.model';

/** The declaration of a kind's table: its names, and the columns an insert writes beside the common ones. */
export interface EntityTableDeclaration<Row, O extends string> extends EntityTableSpec<O> {
  columns: ReadonlyArray<keyof Row & string>;
}

/**
 * The TypeORM store of an entity kind (MySQL and SQLite), generic over its row and domain types:
 * lookups, pages of Lists, restores, and the statements of creates and purges. A kind's store
 * adds what only it has (a gateway's EUI, a client's secret hash, an application's devices).
 */
export abstract class TypeOrmEntityStore<Row extends ObjectLiteral & EntityRow & EntityRowColumns, M, O extends string> implements EntityStore<M> {
  protected readonly table: EntityTable<Row, O>;

  protected constructor(
    protected readonly dataSource: DataSource,
    entity: new () => Row,
    private readonly declaration: EntityTableDeclaration<Row, O>,
    private readonly toDomain: (row: Row) => M,
  ) {
    this.table = new EntityTable(dataSource, entity, declaration);
  }

  exists(id: string): Promise<boolean> {
    return this.table.exists(id);
  }

  async get(id: string, scope?: Scope): Promise<M | undefined> {
    const row = await this.table.find(id, scope);
    return row ? this.toDomain(row) : undefined;
  }

  restore(id: string): Promise<boolean> {
    return this.table.restore(id);
  }

  /** One page of a List, mapped. */
  protected async page(query: EntityListQuery<O>): Promise<{ entities: M[]; total: number }> {
    const { rows, total } = await this.table.list(query);
    return { entities: rows.map(this.toDomain), total };
  }

  /** The statement inserting a new (live) row. */
  protected insertStatement(row: Row): Statement {
    const { table, columns } = this.declaration;
    const names = [...columns, 'created_at', 'updated_at', 'deleted_at', 'fields'];
    const values = [...columns.map((column) => row[column]), timestampToSql(row.created_at), timestampToSql(row.updated_at), null, row.fields];
    return { sql: `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, params: values };
  }

  /**
   * Inserts the row and its first collaborator, both or neither. A duplicate key is the ID when
   * an entity (even a deleted one) has it, else what `otherConflict` finds (or the error).
   */
  protected async insertWithCollaborator<X>(
    kind: CollaboratedKind,
    row: Row,
    collaborator: Collaborator,
    otherConflict?: () => Promise<X | undefined>,
  ): Promise<CreateResult | X> {
    const id: string = row[this.declaration.id];
    try {
      await runAtomically(this.dataSource, [this.insertStatement(row), insertCollaborator(kind, id, collaborator, row.created_at)]);
      return { ok: true };
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      if (await this.table.find(id, 'any')) return { ok: false, conflict: 'id' };
      const conflict = await otherConflict?.();
      if (conflict) return conflict;
      throw err;
    }
  }

  /** Removes the row (live or deleted) and its collaborators; false when there is none. */
  protected async purgeWithCollaborators(kind: CollaboratedKind, id: string): Promise<boolean> {
    const { table, id: idColumn } = this.declaration;
    const [changed] = await runAtomically(this.dataSource, [
      { sql: `DELETE FROM ${table} WHERE ${idColumn} = ?`, params: [id] },
      deleteCollaboratorsOfPurged(kind, id),
    ]);
    return changed > 0;
  }
}
