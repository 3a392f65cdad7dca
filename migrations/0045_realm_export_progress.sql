-- A data export is built in steps, one per alarm of the organization's MessageScheduler,
-- each small enough for one alarm's memory and time (`actions::realm_export::build`).
-- `progress` (JSON) says what the steps so far wrote: the R2 multipart upload, its parts,
-- and where the next step begins, so that a restart goes on from the last finished step.
ALTER TABLE realm_exports ADD COLUMN progress TEXT;
