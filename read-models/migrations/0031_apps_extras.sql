-- Apps, issue 35 (docs/apps.md): the scopes an app asks for and an installation grants, the OAuth 2
-- client-credentials access tokens, the runtime of migrate-v2 and the CMS module packages.
-- `app_access_tokens` is not a projection (like `sessions`: short-lived, written by the service,
-- kept by a rebuild): tokens are stored as SHA-256 hashes only.

alter table rm_apps add column if not exists scopes jsonb not null default '[]'::jsonb;
alter table rm_apps add column if not exists platform_version int not null default 1;
alter table rm_apps add column if not exists runtime_status text not null default 'NOT_BUILT';
alter table rm_apps add column if not exists runtime_error text;
alter table rm_apps add column if not exists cms_package jsonb;

alter table rm_app_installations add column if not exists granted_scopes jsonb not null default '[]'::jsonb;
create index if not exists rm_app_installations_client_id on rm_app_installations ((credentials->>'clientId'));
create index if not exists rm_app_installations_previous_client_id on rm_app_installations ((previous_credentials->>'clientId')) where previous_credentials is not null;

create table if not exists app_access_tokens (
  token_hash text primary key,
  tenant text not null,
  app_uuid uuid not null,
  client_id text not null,
  scopes jsonb not null,
  created_at bigint not null,
  expires_at bigint not null
);
create index if not exists app_access_tokens_expiry on app_access_tokens (expires_at);
