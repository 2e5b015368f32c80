/**
 * Counts what a piece of code does to the database, statement by statement: a Kysely plugin
 * on a second handle of the same storage, so the code under test runs its real queries.
 */
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Db } from '../../cloud/storage/database.ts';

export interface Statement {
  kind: RootOperationNode['kind'];
  /** the table a DELETE, UPDATE or INSERT names */
  table?: string;
  /** rows deleted, updated or inserted */
  rows: number;
}

export interface CountingDb {
  db: Db;
  statements: Statement[];
  /** lets a test change what a statement returned (a read that happened earlier than it did) */
  mapResult?: (s: Statement, result: QueryResult<UnknownRow>) => QueryResult<UnknownRow>;
}

export function countingDb(db: Db): CountingDb {
  const pending = new Map<unknown, Statement>();
  const handle: CountingDb = { db, statements: [] };
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
      pending.set(queryId, { kind: node.kind, table: tableOf(node), rows: 0 });
      return node;
    },
    async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const s = pending.get(queryId);
      pending.delete(queryId);
      if (s) {
        s.rows = Number(result.numAffectedRows ?? 0);
        handle.statements.push(s);
        return handle.mapResult?.(s, result) ?? result;
      }
      return result;
    },
  };
  handle.db = db.withPlugin(plugin);
  return handle;
}

function tableOf(node: RootOperationNode): string | undefined {
  const table = (n: any) => (n?.kind === 'AliasNode' ? n.node : n)?.table?.identifier?.name as string | undefined;
  if (node.kind === 'DeleteQueryNode') return table(node.from.froms[0]);
  if (node.kind === 'UpdateQueryNode') return table(node.table);
  if (node.kind === 'InsertQueryNode') return table(node.into);
  if (node.kind === 'SelectQueryNode') return table(node.from?.froms[0]);
  return undefined;
}

/** The DELETE statements on one table. */
export const deletesOn = (statements: Statement[], table: string) =>
  statements.filter((s) => s.kind === 'DeleteQueryNode' && s.table === table);
