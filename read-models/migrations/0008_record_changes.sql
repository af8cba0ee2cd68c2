-- How many record-row changes each object has seen, in the same shards as its counts: every
-- create, update, archive, restore and extension of a record row adds one in the change's own
-- transaction. The sum over an object's shards names the state of its records (a snapshot that
-- sees the same sum sees the same records), which is what the index result cache is keyed by
-- (src/records/index-cache.ts, docs/records.md).
alter table record_counts add column if not exists changes bigint not null default 0;
