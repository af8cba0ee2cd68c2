-- The index engine (issue 15): contains / startsWith / endsWith with a term of one or two
-- characters. Trigrams cannot serve them (a pattern of fewer than three characters has no trigram
-- to look up, so `tf like '%ru%'` read every pivot row of every tenant). `record_grams(fid, tf)`
-- is the set of the folded text's single characters and pairs of adjacent characters, each keyed
-- by its pivot key (`<fid>:<gram>`), so a term's posting list holds exactly the values of one
-- property of one object that contain it (like the object-scoped lexemes of 0006). The query
-- keeps `tf like ...` as the exact check; the grams only find the candidates.
--
-- Each part is a regexp_replace putting the key before every character (or pair, from the first
-- and from the second character) and a separator (U+0001, a control character no stored text can
-- hold) after it; a pair's odd trailing character becomes an element without a key, which no
-- query asks for. No PL/pgSQL: PGlite and PostgreSQL run it alike.
create or replace function record_grams(fid int, s text) returns text[]
  language sql immutable strict parallel safe
  as $$ select string_to_array(regexp_replace(s, '(.)', fid || E':\\1\x01', 'g') || regexp_replace(s, '(..)', fid || E':\\1\x01', 'g') || E'\x01' || regexp_replace(substr(s, 2), '(..)', fid || E':\\1\x01', 'g'), E'\x01') $$;

create index if not exists record_values_grams on record_values using gin (record_grams(fid, tf));
