import { dynadataCreate, dynadataDelete, dynadataGet, dynadataList, dynadataUpdate } from './dynadata';
import { httpRequestAction } from './http-request';
import { jwtGenerate } from './jwt-generate';
import { mediaSpeech } from './media-speech';
import { mediaTranscode } from './media-transcode';
import { mediaTranscribe } from './media-transcribe';
import { messagesSend } from './messages-send';
import type { WorkflowAction } from './registry';
import { speechSpokenText } from './speech-spoken-text';
import { speechSynthesize } from './speech-synthesize';

export type { ActionContext, WorkflowAction } from './registry';

/** Every action a workflow step may name. */
export const ACTIONS: ReadonlyMap<string, WorkflowAction> = new Map(
  [
    jwtGenerate,
    mediaTranscode,
    mediaTranscribe,
    mediaSpeech,
    speechSynthesize,
    speechSpokenText,
    messagesSend,
    dynadataCreate,
    dynadataUpdate,
    dynadataGet,
    dynadataDelete,
    dynadataList,
    httpRequestAction,
  ].map((a) => [a.name, a]),
);

export const findAction = (name: string): WorkflowAction | undefined => ACTIONS.get(name);
