/**
 * What the PostgreSQL store's cluster SQL and the cluster's modules need of a `pg` pool or client:
 * parameterised queries.
 */
export interface Queryable {
  query<R extends Record<string, unknown> = Record<string, unknown>>(text: string, values?: readonly unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}
