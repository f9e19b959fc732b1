import type { Named, Schema, SuccessBody } from './operation-types.js';

/**
 * Friendly names for the resources of the API, each read out of the OpenAPI document: the document's named
 * schema when it has one of that name, otherwise the answer of the operation that reads the resource. These
 * are aliases over the generated types, never shapes written by hand.
 */

export type Problem = Schema<'Problem'>;
export type ContactFields = Schema<'ContactFields'>;

export type Company = Named<'Company', SuccessBody<'getSelf'>['company']>;
export type Plan = Named<'Plan', SuccessBody<'listPublicPlans'>['plans'][number]>;
export type Usage = Named<'Usage', SuccessBody<'getUsage'>['usage']>;

export type DynadataType = Named<'DynadataType', SuccessBody<'listDynadataTypes'>['types'][number]>;
export type DynadataItem = Named<'DynadataItem', SuccessBody<'getDynadataItem'>>;

export type StorageUpload = Named<'StorageUpload', SuccessBody<'createUploadUrl'>>;
export type StoredObject = Named<'StoredObject', SuccessBody<'completeUpload'>>;

export type TranscodeJob = Named<'TranscodeJob', SuccessBody<'getTranscode'>['job']>;
export type TranscriptionJob = Named<'TranscriptionJob', SuccessBody<'getTranscription'>['job']>;
export type SpeechVoice = Named<'SpeechVoice', SuccessBody<'listSpeechVoices'>['voices'][number]>;
export type Speech = Named<'Speech', SuccessBody<'synthesizeSpeech'>>;
export type SpeechJob = Named<'SpeechJob', SuccessBody<'getSpeechJob'>['job']>;

export type Workflow = Named<'Workflow', SuccessBody<'getWorkflow'>['workflow']>;
export type WorkflowRun = Named<'WorkflowRun', SuccessBody<'getWorkflowRun'>['run']>;
/** A step's `if`: one operator per object, `and` / `or` / `not` nesting conditions. */
export type WorkflowCondition = Schema<'WorkflowCondition'>;

export type WebhookEndpoint = Named<'WebhookEndpoint', SuccessBody<'getWebhookEndpoint'>['endpoint']>;
/** An event as delivered to webhook endpoints and listed by `GET /v1/events`: one payload per `type`. */
export type Event = Named<'Event', SuccessBody<'listEvents'>['events'][number]>;
export type EventType = Event['type'];
/** An event with its delivery records, as `GET /v1/events/{id}` answers it. */
export type EventWithDeliveries = SuccessBody<'getEvent'>['event'];

/**
 * The body of a webhook delivery: an event, or a delivery of the company's message channel, which shares the
 * envelope (`{id, type, createdAt, data}`) with type `message.send`.
 */
export type WebhookEvent =
  | Event
  | { id: string; type: 'message.send'; createdAt: string; data: Record<string, unknown> };
