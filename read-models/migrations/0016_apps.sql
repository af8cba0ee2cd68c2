-- Apps (issue 19). `rm_apps` is projected from the app- streams (in the creator company's
-- tenant); the installation tables from the installation- streams (in the installing company's
-- tenant). Secrets are AES-256-GCM ciphertext, never the value in clear. `app_iframe_sessions`
-- and `app_oauth_flows` are not projections (short-lived, written by the service, kept by a
-- rebuild): tokens and OAuth states are stored as SHA-256 hashes only.

create table if not exists rm_apps (
  tenant text not null,
  app_uuid uuid not null,
  visibility text not null,
  label text not null,
  description text not null,
  details text not null,
  category text not null,
  pricing jsonb not null,
  settings_schema jsonb not null,
  app_bars jsonb not null,
  webhook_url text,
  oauth_providers jsonb not null default '[]'::jsonb,
  review_state text not null,
  feedback text not null,
  reviewer_notes text not null,
  created_at bigint not null,
  updated_at bigint not null,
  created_by uuid,
  updated_by uuid,
  revision int not null,
  primary key (tenant, app_uuid)
);
create unique index if not exists rm_apps_uuid on rm_apps (app_uuid);
create index if not exists rm_apps_market on rm_apps (category, label) where visibility = 'PUBLIC' and review_state = 'APPROVED';

create table if not exists rm_app_cms_modules (
  app_uuid uuid not null,
  name text not null,
  definition jsonb not null,
  retired boolean not null,
  updated_at bigint not null,
  primary key (app_uuid, name)
);

create table if not exists rm_app_installations (
  tenant text not null,
  app_uuid uuid not null,
  app_tenant text not null,
  installed boolean not null,
  settings jsonb not null,
  state jsonb not null,
  credentials jsonb not null,
  previous_credentials jsonb,
  previous_valid_until bigint,
  installed_at bigint not null,
  updated_at bigint not null,
  revision int not null,
  primary key (tenant, app_uuid)
);

create table if not exists rm_app_user_settings (
  tenant text not null,
  app_uuid uuid not null,
  user_uuid uuid not null,
  settings jsonb not null,
  primary key (tenant, app_uuid, user_uuid)
);

create table if not exists rm_app_secrets (
  tenant text not null,
  app_uuid uuid not null,
  name text not null,
  ciphertext text not null,
  updated_at bigint not null,
  primary key (tenant, app_uuid, name)
);

create table if not exists rm_app_connections (
  tenant text not null,
  app_uuid uuid not null,
  connection_id uuid not null,
  provider text not null,
  scope text not null,
  expires_at bigint,
  tokens text not null,
  connected_at bigint not null,
  primary key (tenant, app_uuid, connection_id)
);

create table if not exists app_iframe_sessions (
  token_hash text primary key,
  tenant text not null,
  app_uuid uuid not null,
  app_bar_uuid uuid not null,
  user_uuid uuid not null,
  context jsonb not null,
  expires_at bigint not null,
  used_at bigint
);
create index if not exists app_iframe_sessions_expiry on app_iframe_sessions (expires_at);

create table if not exists app_oauth_flows (
  state_hash text primary key,
  tenant text not null,
  app_uuid uuid not null,
  provider text not null,
  user_uuid uuid,
  code_verifier text not null,
  redirect_uri text not null,
  expires_at bigint not null
);
