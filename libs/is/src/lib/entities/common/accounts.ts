import type { Statement } from '@lorawan/persistence';
import { ErrOrganizationNotFound, ErrUserNotFound } from '../../errors';
import type { IdentityDirectory } from '../../identity.contracts';

/** The kinds of accounts: users and organizations share one ID namespace (TTS). */
export type AccountKind = 'user' | 'organization';

/** A user or an organization: what collaborates on entities. */
export interface AccountRef {
  kind: AccountKind;
  id: string;
}

/**
 * The statement claiming an account ID (inside the transaction creating the user or organization):
 * its primary key makes a second account of the same ID, of either kind, fail as a duplicate.
 */
export function insertAccount(account: AccountRef): Statement {
  return { sql: 'INSERT INTO accounts (account_id, account_kind) VALUES (?, ?)', params: [account.id, account.kind] };
}

/** The statement freeing an account ID (inside the purge of its user or organization). */
export function deleteAccount(account: AccountRef): Statement {
  return { sql: 'DELETE FROM accounts WHERE account_id = ? AND account_kind = ?', params: [account.id, account.kind] };
}

/** Throws the account's not-found error unless it exists (live). */
export async function mustExistAccount(directory: Pick<IdentityDirectory, 'exists'>, account: AccountRef): Promise<void> {
  if (await directory.exists(account)) return;
  throw account.kind === 'user' ? ErrUserNotFound.with({ user_id: account.id }) : ErrOrganizationNotFound.with({ organization_id: account.id });
}
