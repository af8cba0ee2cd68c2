-- Writes (issue 15, item 3): the gram index of 0019 took a key for every character and pair of
-- every text value (and a null entry for every pivot row without text), the largest share of a
-- record write's index work in PostgreSQL (docs/records.md, "Where a write's time goes"). A
-- contains / startsWith / endsWith of one or two characters reads the property's pivot rows again
-- (`tf like`, as before 0019; docs/adr/0005-the-uncached-index-path.md).
drop index if exists record_values_grams;
drop function if exists record_grams(int, text);
