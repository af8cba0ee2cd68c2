-- App functions (issue 35): deploys and jobs are projected from their streams (`deploys-<appUuid>`
-- in the creator company's tenant, `appjob-<uuid>` in the installing company's); the runtime logs
-- are not a projection (what a function printed, written by the service after each invocation,
-- kept by a rebuild, like a webhook's delivery log).

create table if not exists rm_app_deploys (
  tenant text not null,
  app_uuid uuid not null,
  deploy_uuid uuid not null,
  number int not null,
  manifest jsonb not null,
  code text not null,
  sha256 text not null,
  size int not null,
  note text not null,
  created_at bigint not null,
  created_by uuid,
  primary key (app_uuid, deploy_uuid)
);
create unique index if not exists rm_app_deploys_number on rm_app_deploys (app_uuid, number);

-- The active deploy of each app; `revision` guards replays.
create table if not exists rm_app_deploy_heads (
  app_uuid uuid primary key,
  tenant text not null,
  active_deploy_uuid uuid not null,
  activated_at bigint not null,
  revision int not null
);

create table if not exists rm_app_jobs (
  tenant text not null,
  job_uuid uuid not null,
  app_uuid uuid not null,
  function_name text not null,
  input jsonb,
  idempotency_key text,
  status text not null,
  attempts int not null,
  max_attempts int not null,
  timeout_ms int not null,
  backoff_ms int not null,
  next_attempt_at bigint not null,
  lease_until bigint,
  result jsonb,
  error jsonb,
  created_at bigint not null,
  updated_at bigint not null,
  finished_at bigint,
  created_by uuid,
  revision int not null,
  primary key (tenant, job_uuid)
);
-- The runners' question: what is due (pending and due, or running on a lease that ran out).
create index if not exists rm_app_jobs_due on rm_app_jobs (next_attempt_at) where status = 'PENDING';
create index if not exists rm_app_jobs_leased on rm_app_jobs (lease_until) where status = 'RUNNING';

create table if not exists app_runtime_logs (
  seq bigserial primary key,
  tenant text not null,
  app_uuid uuid not null,
  invocation_uuid uuid not null,
  function_name text not null,
  job_uuid uuid,
  level text not null,
  message text not null,
  at bigint not null
);
create index if not exists app_runtime_logs_app on app_runtime_logs (tenant, app_uuid, seq desc);
