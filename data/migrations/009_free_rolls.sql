-- A free roll (/roll 2d6+3): a ledger row of its own, not a rule roll. `free` holds its breakdown as d20
-- wrote it ("2d6 (3, 5) + 3 = 11"; NULL for every rule roll); its `total` is the sum, `die` the same, `sides`
-- 0, and it belongs to no action (action_id NULL): /gm undo never takes it, the replay never sees it.
ALTER TABLE rolls ADD COLUMN free TEXT;
