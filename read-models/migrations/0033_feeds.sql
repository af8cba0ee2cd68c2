-- Feeds (issue 37, docs/feeds.md). `rm_feeds` is a read model projected inline from the feed-
-- streams (a rebuild truncates it). The public route finds a feed by the SHA-256 of its token
-- (`token_hash`, unique: a rotation replaces it in the command's own transaction, so the old token
-- is dead at once); the token itself is stored nowhere.
create table if not exists rm_feeds (
  tenant text not null,
  feed_uuid uuid not null,
  name text not null,
  title text not null,
  description text not null,
  home_url text,
  object_uuid uuid not null,
  object_name text not null,
  filters jsonb not null,
  sort jsonb not null,
  fields jsonb not null,
  format text not null,
  enabled boolean not null,
  token_hash text not null,
  idx int not null,
  created_at bigint not null,
  updated_at bigint not null,
  deleted_at bigint,
  created_by uuid,
  updated_by uuid,
  deleted_by uuid,
  revision int not null,
  primary key (tenant, feed_uuid)
);
create unique index if not exists rm_feeds_token on rm_feeds (token_hash);

-- Not a projection (a rebuild leaves it alone): when a feed first saw an object's change count,
-- the feed's Last-Modified for that count. One row per object, replaced when the count moves.
create table if not exists feed_object_marks (
  tenant text not null,
  object_uuid uuid not null,
  version text not null,
  seen_at bigint not null,
  primary key (tenant, object_uuid)
);
