-- Free text, scoped to the object: every lexeme of a record row's search vector starts with its
-- object's key, and a query's lexemes get the same key, so the GIN on `search` alone finds one
-- object's matches of a term directly. The old (object_uuid, search) GIN intersected the term's
-- entries with every record of the object: a cost growing with the object, not the matches
-- (docs/records.md, Index design).
create or replace function search_scope(object_uuid uuid) returns text
  language sql immutable parallel safe
  as $$ select left(replace(object_uuid::text, '-', ''), 12) || '.' $$;

-- Lexemes are the quoted parts of the text forms ('' is a quote inside one); positions, weights
-- and operators stay as they are.
create or replace function scoped_tsvector(object_uuid uuid, v tsvector) returns tsvector
  language sql immutable parallel safe
  as $$ select regexp_replace(v::text, '''((?:[^'']|'''')*)''', '''' || search_scope(object_uuid) || '\1''', 'g')::tsvector $$;

create or replace function scoped_tsquery(object_uuid uuid, q tsquery) returns tsquery
  language sql immutable parallel safe
  as $$ select regexp_replace(q::text, '''((?:[^'']|'''')*)''', '''' || search_scope(object_uuid) || '\1''', 'g')::tsquery $$;

update records set search = scoped_tsvector(object_uuid, search);
drop index if exists records_search;
create index if not exists records_search_scoped on records using gin (search);
