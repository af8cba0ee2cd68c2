-- Audit fields (issue 20, item 6): every resource answers createdBy, updatedBy and deletedBy
-- (src/http/audit-fields.ts), so every read model keeps who created, changed last and deleted.
-- Rows written before this migration hold null until `npm run rebuild` replays the log.
alter table rm_objects add column if not exists deleted_by uuid;
alter table rm_properties add column if not exists created_by uuid, add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table rm_relations add column if not exists created_by uuid, add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table rm_traits add column if not exists created_by uuid, add column if not exists updated_by uuid;
alter table rm_saved_filters add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table teams add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table companies add column if not exists updated_by uuid;

-- The User trait (issue 20, item 8): the platform user a record is the profile of, on every row of
-- the record (set by RecordUserLinked / RecordUserUnlinked). A user is the profile of one record of
-- a company at most: a second link fails the append (409).
alter table records add column if not exists user_uuid uuid;
create unique index if not exists records_user_link on records (tenant, user_uuid) where is_primary and user_uuid is not null;
