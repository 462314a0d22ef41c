-- A secret /roll (issue 34): `secret` 1 while only its roller and the game's GM may see its dice (every other view
-- of the ledger shows the row as a secret roll, its values hidden), 2 once the roller or the GM revealed it (shown
-- as any free roll, marked revealed); 0 for every other roll.
ALTER TABLE rolls ADD COLUMN secret INTEGER NOT NULL DEFAULT 0;
