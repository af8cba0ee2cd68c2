-- Forms (issue 18). `rm_forms` is projected inline from the form- streams, `rm_form_submissions`
-- from the form-submission- streams (a rebuild truncates both and replays them).

create table if not exists rm_forms (
  tenant text not null,
  form_uuid uuid not null,
  object_uuid uuid not null,
  object_name text not null,
  name text not null,
  label text not null,
  published boolean not null,
  settings jsonb not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, form_uuid)
);
create index if not exists rm_forms_object on rm_forms (tenant, object_uuid, created_at);

create table if not exists rm_form_submissions (
  tenant text not null,
  submission_uuid uuid not null,
  form_uuid uuid not null,
  form_revision int not null,
  record_uuid uuid not null,
  record_uuids jsonb not null,
  related jsonb not null,
  score double precision,
  visitor jsonb not null,
  created_at bigint not null,
  primary key (tenant, submission_uuid)
);
create index if not exists rm_form_submissions_form on rm_form_submissions (tenant, form_uuid, created_at);
