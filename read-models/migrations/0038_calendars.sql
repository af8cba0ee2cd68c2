-- Calendars (issue 39): calendars owned by members and shared with teams, and their events
-- ("entries", so they are never confused with the log's events). Read models projected inline
-- from the calendar- and calentry- streams (a rebuild truncates them).
create table if not exists rm_calendars (
  tenant text not null,
  calendar_uuid uuid not null,
  owner_uuid uuid not null,
  name text not null,
  description text not null,
  time_zone text not null,
  color text,
  team_uuids jsonb not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, calendar_uuid)
);

-- `first_at` / `last_at`: the instants (ms) the series can touch, changed occurrences included;
-- last_at null: it repeats without end. A window query reads the entries whose span meets it.
create table if not exists rm_calendar_entries (
  tenant text not null,
  entry_uuid uuid not null,
  calendar_uuid uuid not null,
  title text not null,
  description text not null,
  location text not null,
  start_wall text not null,
  end_wall text not null,
  time_zone text not null,
  all_day boolean not null,
  attendees jsonb not null,
  recurrence text,
  overrides jsonb not null,
  first_at bigint not null,
  last_at bigint,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, entry_uuid)
);
create index if not exists rm_calendar_entries_window on rm_calendar_entries (tenant, calendar_uuid, first_at);
