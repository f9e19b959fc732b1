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

export type Workflow = Named<'Workflow', SuccessBody<'getWorkflow'>['workflow']>;
export type WorkflowRun = Named<'WorkflowRun', SuccessBody<'getWorkflowRun'>['run']>;

export type WebhookEndpoint = Named<'WebhookEndpoint', SuccessBody<'getWebhookEndpoint'>['endpoint']>;
export type Event = Named<'Event', SuccessBody<'getEvent'>['event']>;
export type EventType = Event['type'];

/** The body of a webhook delivery: the event without its delivery records. */
export type WebhookEvent = Pick<Event, 'id' | 'type' | 'createdAt' | 'data'>;
