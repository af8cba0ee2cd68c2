-- Audit fields (issue 20, item 6): every resource answers createdBy, updatedBy and deletedBy
-- (src/http/audit-fields.ts), so every read model keeps who created, changed last and deleted.
-- Rows written before this migration hold null until `npm run rebuild` replays the log.
alter table rm_objects add column if not exists deleted_by uuid;
alter table rm_properties add column if not exists created_by uuid, add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table rm_relations add column if not exists created_by uuid, add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table rm_traits add column if not exists created_by uuid, add column if not exists updated_by uuid;
alter table rm_saved_filters add column if not exists updated_by uuid, add column if not exists deleted_by uuid;
alter table teams add column if not exists updated_by uuid, add column if not exists deleted_by uuid;

