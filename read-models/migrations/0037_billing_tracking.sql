-- Billing status (issue 40, docs/billing.md): `rm_billing` is projected inline from the billing-
-- streams (a rebuild truncates it). A company without a row is ACTIVE.
create table if not exists rm_billing (
  tenant text not null primary key,
  status text not null,
  trial_ends_at bigint,
  reason text not null default '',
  changed_by_hook text,
  updated_at bigint not null,
  updated_by uuid,
  revision int not null
);

-- The setup e-mail's one-time links: only the SHA-256 of the token is kept; single use, expiring.
create table if not exists billing_setup_tokens (
  token_hash text primary key,
  tenant text not null,
  user_uuid uuid not null,
  created_at bigint not null,
  expires_at bigint not null,
  used_at bigint
);
create index if not exists billing_setup_tokens_tenant on billing_setup_tokens (tenant, created_at);

-- Visitor tracking (docs/tracking.md). `rm_tracking_sites` is projected from the tracking-site-
-- streams (the public site key of a company). The other tables are not read models of the event
-- log: page views are kept apart from it (volume, retention) and deleted after the retention.
create table if not exists rm_tracking_sites (
  tenant text not null primary key,
  site_key text not null unique,
  updated_at bigint not null,
  updated_by uuid,
  revision int not null
);

-- One row per accepted event; (tenant, event_id) makes a retried batch count once. `network` is
-- the address cut to /24 (IPv4) or /48 (IPv6); `visitor` a hash with a salt of the day.
create table if not exists tracking_events (
  tenant text not null,
  event_id uuid not null,
  batch_id uuid not null,
  day int not null,
  received_at bigint not null,
  kind text not null,
  name text not null,
  path text not null,
  referrer text not null,
  visitor text not null,
  network text not null,
  browser text not null,
  os text not null,
  device text not null,
  primary key (tenant, event_id)
);
create index if not exists tracking_events_day on tracking_events (day);

-- Accepted events not yet counted: written in the ingest's statement, taken (deleted) by the
-- roll-up in the same statement that adds them to the counts, so each is counted once.
create table if not exists tracking_rollup_queue (
  tenant text not null,
  day int not null,
  path text not null,
  kind text not null,
  visitor text not null
);

-- Per page (path '*': the whole site) and day (days since 1970-01-01, UTC).
create table if not exists tracking_daily_pages (
  tenant text not null,
  day int not null,
  path text not null,
  views bigint not null,
  events bigint not null,
  visitors bigint not null,
  primary key (tenant, day, path)
);
create index if not exists tracking_daily_pages_day on tracking_daily_pages (day);

create table if not exists tracking_daily_visitors (
  tenant text not null,
  day int not null,
  path text not null,
  visitor text not null,
  primary key (tenant, day, path, visitor)
);
create index if not exists tracking_daily_visitors_day on tracking_daily_visitors (day);

-- The salt of each day's visitor hash, shared by every server process; deleted after two days, so
-- a hash cannot be traced back to an address afterwards.
create table if not exists tracking_salts (
  day int primary key,
  salt text not null
);
