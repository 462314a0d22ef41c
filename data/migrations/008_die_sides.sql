-- The die of a numbered roll: a d10 in Nations (every roll before this migration), a d6 in Godsfire.
ALTER TABLE rolls ADD COLUMN sides INTEGER;
