-- Web menus (issue 16): a live menu's name is unique per company and environment; the public
-- menu list reads a company's live menus by environment.
create unique index if not exists rm_web_menus_name_unique on rm_web_menus (tenant, environment, name) where deleted_at is null;
