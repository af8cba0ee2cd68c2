-- Notifications (issue 39): each member's inbox, projected inline from the notification- streams,
-- and its preferences from the inbox- streams (a rebuild truncates both).
create table if not exists rm_notifications (
  tenant text not null,
  notification_uuid uuid not null,
  user_uuid uuid not null,
  kind text not null,
  title text not null,
  body text not null,
  subject jsonb not null,
  cause text not null,
  created_at bigint not null,
  read_at bigint,
  revision int not null,
  primary key (tenant, notification_uuid)
);
create index if not exists rm_notifications_inbox on rm_notifications (tenant, user_uuid, created_at desc, notification_uuid);
create index if not exists rm_notifications_unread on rm_notifications (tenant, user_uuid) where read_at is null;

create table if not exists rm_inbox_preferences (
  tenant text not null,
  user_uuid uuid not null,
  muted jsonb not null,
  revision int not null,
  primary key (tenant, user_uuid)
);
