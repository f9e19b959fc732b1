import { ExecutionAlreadyExistsError, startExecution } from '../../aws/step-functions';
import { freeLane, type LaneRef, nextInLane, type UnfinishedLane } from '../../data/webhook-deliveries';
import { deliveryExecutionName } from './delivery';

/**
 * Starting the `webhook-delivery` execution of a lane: the dispatcher's, for the event it just queued, and
 * the resumption of a lane whose execution is gone. Kept apart from the delivery steps, which the delivery
 * worker runs and which start no execution.
 */
/**
 * Starts the lane's delivery execution for the event just queued (`tag` names a later start for the same
 * event, such as a resumption): a repeated start by the same name is the same execution, which delivers or
 * has delivered.
 */
export const startLane = async (lane: LaneRef, eventId: string, tag?: string): Promise<void> => {
  const name = `${deliveryExecutionName(lane, eventId)}${tag ? `-${tag}` : ''}`;
  try {
    await startExecution('webhook-delivery', name, { ...lane, owner: name });
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExistsError)) throw error;
  }
};

/**
 * Resumes a lane whose execution is gone (it did not survive a restart): the lane is taken from the gone
 * owner and a new execution sends its deliveries, oldest first; each ends delivered or failed as always (a
 * disabled or deleted endpoint fails them with that reason). An empty lane is released. Returns false when
 * the lane had moved meanwhile (a live owner holds it).
 */
export const resumeLane = async (lane: UnfinishedLane, now: Date): Promise<boolean> => {
  if (!(await freeLane(lane))) return false;
  const oldest = lane.pending > 0 ? await nextInLane(lane) : undefined;
  if (oldest) await startLane(lane, oldest, `r${now.getTime().toString(36)}`);
  return true;
};
