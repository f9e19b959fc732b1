import { attemptStep, claimStep, type LaneTask, nextStep } from '../../shared/domain/events/delivery';
import { createHandler } from '../../shared/pipeline/handler';

type DeliveryTask =
  | (LaneTask & { action: 'claim' })
  | (LaneTask & { action: 'next' })
  | (LaneTask & { action: 'attempt'; eventId: string });

/** Task worker of the `webhook-delivery` state machine: one lane step per invocation (`action`). */
export const handler = createHandler(
  (task: DeliveryTask): Promise<unknown> => {
    if (task.action === 'claim') return claimStep(task);
    if (task.action === 'next') return nextStep(task);
    return attemptStep(task);
  },
  ({ companyId, endpointId, resourceId }) => ({ companyId, endpointId, resourceId }),
);
