import type { Sql } from '../ports/sql.js';

/** One accepted event, as the ingest writes it (no full address: `network` is cut, `visitor` a salted hash). */
export interface TrackedEventRow {
  tenant: string;
  event_id: string;
  batch_id: string;
  day: number;
  received_at: number;
  kind: 'pageview' | 'event';
  name: string;
  path: string;
  referrer: string;
  visitor: string;
  network: string;
  browser: string;
  os: string;
  device: string;
}

export interface DailyPageRow {
  day: number;
  path: string;
  views: number;
  events: number;
  visitors: number;
}

/** A company's current site key, or null. */
export async function siteKeyOf(sql: Sql, tenant: string): Promise<string | null> {
  const [row] = await sql.query<{ site_key: string }>('select site_key from rm_tracking_sites where tenant = $1', [tenant]);
  return row?.site_key ?? null;
}

/** The company a site key is the current key of, or null. */
export async function tenantOfSiteKey(sql: Sql, siteKey: string): Promise<string | null> {
  const [row] = await sql.query<{ tenant: string }>('select tenant from rm_tracking_sites where site_key = $1', [siteKey]);
  return row?.tenant ?? null;
}

/** The salt of a day's visitor hashes: the first process to ask makes it, every other one reads it. */
export async function saltOfDay(sql: Sql, day: number, fresh: string): Promise<string> {
  await sql.query('insert into tracking_salts (day, salt) values ($1, $2) on conflict do nothing', [day, fresh]);
  const [row] = await sql.query<{ salt: string }>('select salt from tracking_salts where day = $1', [day]);
  return row!.salt;
}

const COLUMNS = 'tenant, event_id, batch_id, day, received_at, kind, name, path, referrer, visitor, network, browser, os, device';

/**
 * Writes accepted events in one statement: an event id the company has already is skipped (a
 * retried batch counts once), and only the new ones go to the roll-up queue. Returns how many were new.
 */
export async function insertTrackedEvents(sql: Sql, rows: readonly TrackedEventRow[]): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `with input as (
       select * from jsonb_to_recordset($1::jsonb) as x(tenant text, event_id uuid, batch_id uuid, day int, received_at bigint, kind text, name text, path text, referrer text, visitor text, network text, browser text, os text, device text)
     ), ins as (
       insert into tracking_events (${COLUMNS}) select ${COLUMNS} from input on conflict (tenant, event_id) do nothing returning tenant, day, path, kind, visitor
     ), queued as (
       insert into tracking_rollup_queue (tenant, day, path, kind, visitor) select tenant, day, path, kind, visitor from ins returning 1
     )
     select count(*)::int8 as n from queued`,
    [JSON.stringify(rows)],
  );
  return row?.n ?? 0;
}

/**
 * Adds up to `limit` queued events to the daily counts, per page and for the whole site (path
 * '*'), in one statement that also takes them off the queue: each is counted once. Unique
 * visitors: a visitor hash new for the page and day adds one. Returns how many it took.
 */
export async function rollUpTracking(sql: Sql, limit: number): Promise<number> {
  const [row] = await sql.query<{ n: number }>(
    `with taken as (
       delete from tracking_rollup_queue where ctid = any(array(select ctid from tracking_rollup_queue limit $1)) returning tenant, day, path, kind, visitor
     ), expanded as (
       select tenant, day, path, kind, visitor from taken union all select tenant, day, '*', kind, visitor from taken
     ), new_visitors as (
       insert into tracking_daily_visitors (tenant, day, path, visitor)
       select distinct tenant, day, path, visitor from expanded where kind = 'pageview' on conflict do nothing returning tenant, day, path
     ), visitors as (
       select tenant, day, path, count(*) as n from new_visitors group by tenant, day, path
     ), counts as (
       select tenant, day, path, count(*) filter (where kind = 'pageview') as views, count(*) filter (where kind = 'event') as events from expanded group by tenant, day, path
     ), added as (
       insert into tracking_daily_pages (tenant, day, path, views, events, visitors)
       select c.tenant, c.day, c.path, c.views, c.events, coalesce(v.n, 0) from counts c left join visitors v using (tenant, day, path)
       order by c.tenant, c.day, c.path
       on conflict (tenant, day, path) do update set views = tracking_daily_pages.views + excluded.views,
         events = tracking_daily_pages.events + excluded.events, visitors = tracking_daily_pages.visitors + excluded.visitors
       returning 1
     )
     select (select count(*) from taken)::int8 as n, (select count(*) from added)::int8 as added`,
    [limit],
  );
  return row?.n ?? 0;
}

/** Deletes what is older than `firstKeptDay` (raw events, counts, visitor hashes) and salts older than yesterday. */
export async function deleteTrackingBefore(sql: Sql, firstKeptDay: number, today: number): Promise<void> {
  await sql.query('delete from tracking_events where day < $1', [firstKeptDay]);
  await sql.query('delete from tracking_daily_pages where day < $1', [firstKeptDay]);
  await sql.query('delete from tracking_daily_visitors where day < $1', [Math.max(firstKeptDay, today - 1)]);
  await sql.query('delete from tracking_salts where day < $1', [today - 1]);
}

/** The company's daily counts from `fromDay` to `toDay`: the whole site (path '*') per day, and the top pages over the range. */
export async function trackingStats(sql: Sql, tenant: string, fromDay: number, toDay: number, topPages: number): Promise<{ days: DailyPageRow[]; pages: DailyPageRow[] }> {
  const days = await sql.query<DailyPageRow>(
    `select day, path, views::int8 as views, events::int8 as events, visitors::int8 as visitors from tracking_daily_pages
      where tenant = $1 and path = '*' and day between $2 and $3 order by day`,
    [tenant, fromDay, toDay],
  );
  const pages = await sql.query<DailyPageRow>(
    `select min(day) as day, path, sum(views)::int8 as views, sum(events)::int8 as events, sum(visitors)::int8 as visitors from tracking_daily_pages
      where tenant = $1 and path <> '*' and day between $2 and $3 group by path order by sum(views) desc, path limit $4`,
    [tenant, fromDay, toDay, topPages],
  );
  return { days, pages };
}
