/**
 * The entity name of Dynadata type records (`data/dynadata-types.ts`) and the status of a type being deleted:
 * pure, so the event source's filter (`lib/constructs/webhook-events.ts`) and the dispatcher name them alike.
 */
export const TYPE_ENTITY = 'dd_type';
export const DELETING_STATUS = 'deleting';
/**
 * The entity name of Dynadata items (`data/dynadata-items.ts`): their stream records become change events
 * (`domain/dynadata/change-stream.ts`).
 */
export const ITEM_ENTITY = 'dd_item';

/** At most this many operations in one batch, and in one atomic batch (DynamoDB's 100 actions a transaction). */
export const MAX_BATCH_OPERATIONS = 100;
export const MAX_ATOMIC_BATCH_OPERATIONS = 49;
