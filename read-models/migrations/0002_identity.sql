-- Identity and tenancy (issue 3).
-- Read models (projected from user, company, membership and team streams; a rebuild truncates
-- them): users, companies, memberships, teams, team_members, team_records.
-- Plain tables (not events, never truncated by a rebuild): user_credentials, sessions,
-- one_time_tokens, login_failures. They hold secrets or hot counters that do not belong in the
-- audit log.

create table if not exists users (
  user_uuid uuid primary key,
  email text not null,
  firstname text not null,
  lastname text not null,
  email_verified boolean not null default false,
  last_company_uuid uuid,
  created_at bigint not null,
  updated_at bigint not null,
  revision int not null
);
create unique index if not exists users_email_unique on users (lower(email));

create table if not exists companies (
  company_uuid uuid primary key,
  name text not null,
  subdomain text not null,
  settings jsonb not null default '{}'::jsonb,
  managed_by uuid,
  copied_from uuid,
  created_by uuid,
  created_at bigint not null,
  updated_at bigint not null,
  revision int not null
);
create unique index if not exists companies_subdomain_unique on companies (subdomain);
create index if not exists companies_managed_by on companies (managed_by) where managed_by is not null;

create table if not exists memberships (
  tenant uuid not null,
  user_uuid uuid not null,
  role text not null,
  scopes jsonb not null default '[]'::jsonb,
  active boolean not null,
  created_at bigint not null,
  updated_at bigint not null,
  revision int not null,
  primary key (tenant, user_uuid)
);
create index if not exists memberships_user on memberships (user_uuid) where active;

create table if not exists teams (
  tenant uuid not null,
  team_uuid uuid not null,
  name text not null,
  description text not null default '',
  scopes jsonb not null default '[]'::jsonb,
  deleted_at bigint,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  revision int not null,
  primary key (tenant, team_uuid)
);

create table if not exists team_members (
  tenant uuid not null,
  team_uuid uuid not null,
  user_uuid uuid not null,
  added_at bigint not null,
  primary key (tenant, team_uuid, user_uuid)
);
create index if not exists team_members_user on team_members (tenant, user_uuid);

create table if not exists team_records (
  tenant uuid not null,
  team_uuid uuid not null,
  record_uuid uuid not null,
  assigned_at bigint not null,
  primary key (tenant, team_uuid, record_uuid)
);
create index if not exists team_records_record on team_records (tenant, record_uuid);

-- Password hashes (scrypt, parameters inside the hash string). Not in events: the event log is an
-- audit trail that admins read, and a hash must be replaceable, not immutable.
create table if not exists user_credentials (
  user_uuid uuid primary key,
  password_hash text not null,
  updated_at bigint not null
);

-- Bearer sessions: only the SHA-256 of the token is kept.
create table if not exists sessions (
  token_hash text primary key,
  user_uuid uuid not null,
  selected_company uuid,
  created_at bigint not null,
  expires_at bigint not null,
  revoked_at bigint
);
create index if not exists sessions_user on sessions (user_uuid) where revoked_at is null;

-- One-time tokens e-mailed for password reset and e-mail verification (hash only).
create table if not exists one_time_tokens (
  token_hash text primary key,
  user_uuid uuid not null,
  purpose text not null,
  created_at bigint not null,
  expires_at bigint not null,
  used_at bigint
);
create index if not exists one_time_tokens_user on one_time_tokens (user_uuid, purpose) where used_at is null;

-- Failed logins per account ("a:<email>") and per client address ("ip:<addr>").
create table if not exists login_failures (
  key text primary key,
  failures int not null,
  window_started_at bigint not null
);
