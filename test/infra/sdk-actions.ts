/**
 * The IAM actions each AWS SDK v3 operation needs, keyed `<package without @aws-sdk/>#<export>`. A command
 * class or paginator a bundle references and this table lacks fails the bundle test, so a new kind of call is
 * mapped here once, deliberately. `TransactWriteCommand` is `TRANSACTION`: its actions are those of the item
 * kinds (`Put`, `Update`, `Delete`, `ConditionCheck`) the bundle builds. So is `DynamoDBDocument`: only
 * `functions/shared/data/transactions.ts` uses it, to send a one-action transaction as that action's
 * single-item write (`test/unit/one-action-transactions.test.ts` holds it to that module).
 */
export const TRANSACTION = 'transaction';

const dynamodb = (action: string) => [`dynamodb:${action}`];

const DOCUMENT_CLIENT: Record<string, string[] | typeof TRANSACTION> = {
  GetCommand: dynamodb('GetItem'),
  PutCommand: dynamodb('PutItem'),
  UpdateCommand: dynamodb('UpdateItem'),
  DeleteCommand: dynamodb('DeleteItem'),
  QueryCommand: dynamodb('Query'),
  ScanCommand: dynamodb('Scan'),
  BatchGetCommand: dynamodb('BatchGetItem'),
  BatchWriteCommand: dynamodb('BatchWriteItem'),
  TransactGetCommand: dynamodb('GetItem'),
  TransactWriteCommand: TRANSACTION,
  DynamoDBDocument: TRANSACTION,
  paginateQuery: dynamodb('Query'),
  paginateScan: dynamodb('Scan'),
};

export const SDK_ACTIONS: Record<string, string[] | typeof TRANSACTION> = {
  ...Object.fromEntries(Object.entries(DOCUMENT_CLIENT).map(([name, a]) => [`lib-dynamodb#${name}`, a])),
  'client-dynamodb#GetItemCommand': dynamodb('GetItem'),
  'client-dynamodb#PutItemCommand': dynamodb('PutItem'),
  'client-dynamodb#UpdateItemCommand': dynamodb('UpdateItem'),
  'client-dynamodb#DeleteItemCommand': dynamodb('DeleteItem'),
  'client-dynamodb#QueryCommand': dynamodb('Query'),
  'client-dynamodb#BatchGetItemCommand': dynamodb('BatchGetItem'),
  'client-dynamodb#BatchWriteItemCommand': dynamodb('BatchWriteItem'),
  'client-dynamodb#TransactGetItemsCommand': dynamodb('GetItem'),
  'client-dynamodb#TransactWriteItemsCommand': TRANSACTION,
  'client-dynamodb#DescribeTableCommand': dynamodb('DescribeTable'),
  'client-dynamodb-streams#DescribeStreamCommand': dynamodb('DescribeStream'),
  'client-dynamodb-streams#GetShardIteratorCommand': dynamodb('GetShardIterator'),
  'client-dynamodb-streams#GetRecordsCommand': dynamodb('GetRecords'),
  'client-dynamodb-streams#ListStreamsCommand': dynamodb('ListStreams'),
  // HeadObject is authorized as GetObject; multipart uploads as PutObject.
  'client-s3#GetObjectCommand': ['s3:GetObject'],
  'client-s3#HeadObjectCommand': ['s3:GetObject'],
  'client-s3#PutObjectCommand': ['s3:PutObject'],
  'client-s3#CopyObjectCommand': ['s3:GetObject', 's3:PutObject'],
  'client-s3#CreateMultipartUploadCommand': ['s3:PutObject'],
  'client-s3#UploadPartCommand': ['s3:PutObject'],
  'client-s3#CompleteMultipartUploadCommand': ['s3:PutObject'],
  'client-s3#AbortMultipartUploadCommand': ['s3:AbortMultipartUpload'],
  'client-s3#ListPartsCommand': ['s3:ListMultipartUploadParts'],
  'client-s3#DeleteObjectCommand': ['s3:DeleteObject'],
  'client-s3#DeleteObjectsCommand': ['s3:DeleteObject'],
  'client-s3#ListObjectsV2Command': ['s3:ListBucket'],
  'client-s3#paginateListObjectsV2': ['s3:ListBucket'],
  'lib-storage#Upload': ['s3:PutObject', 's3:AbortMultipartUpload'],
  'client-sfn#StartExecutionCommand': ['states:StartExecution'],
  'client-sfn#StartSyncExecutionCommand': ['states:StartSyncExecution'],
  'client-sfn#StopExecutionCommand': ['states:StopExecution'],
  'client-sfn#DescribeExecutionCommand': ['states:DescribeExecution'],
  'client-sfn#SendTaskSuccessCommand': ['states:SendTaskSuccess'],
  'client-sfn#SendTaskFailureCommand': ['states:SendTaskFailure'],
  'client-sfn#SendTaskHeartbeatCommand': ['states:SendTaskHeartbeat'],
  'client-secrets-manager#GetSecretValueCommand': ['secretsmanager:GetSecretValue'],
  'client-kms#GenerateDataKeyCommand': ['kms:GenerateDataKey'],
  'client-kms#DecryptCommand': ['kms:Decrypt'],
  'client-secrets-manager#PutSecretValueCommand': ['secretsmanager:PutSecretValue'],
  'client-secrets-manager#DescribeSecretCommand': ['secretsmanager:DescribeSecret'],
  'client-secrets-manager#UpdateSecretVersionStageCommand': ['secretsmanager:UpdateSecretVersionStage'],
  'client-polly#SynthesizeSpeechCommand': ['polly:SynthesizeSpeech'],
  'client-mediaconvert#ProbeCommand': ['mediaconvert:Probe'],
  'client-iam#CreateAccessKeyCommand': ['iam:CreateAccessKey'],
  'client-iam#DeleteAccessKeyCommand': ['iam:DeleteAccessKey'],
  'client-iam#ListAccessKeysCommand': ['iam:ListAccessKeys'],
  'client-iam#UpdateAccessKeyCommand': ['iam:UpdateAccessKey'],
  'client-lambda#InvokeCommand': ['lambda:InvokeFunction'],
  'client-sqs#SendMessageCommand': ['sqs:SendMessage'],
  'client-sqs#SendMessageBatchCommand': ['sqs:SendMessage'],
  'client-sqs#ChangeMessageVisibilityCommand': ['sqs:ChangeMessageVisibility'],
  'client-sqs#ChangeMessageVisibilityBatchCommand': ['sqs:ChangeMessageVisibility'],
  'client-scheduler#CreateScheduleCommand': ['scheduler:CreateSchedule', 'iam:PassRole'],
  'client-scheduler#UpdateScheduleCommand': ['scheduler:UpdateSchedule', 'iam:PassRole'],
  'client-scheduler#DeleteScheduleCommand': ['scheduler:DeleteSchedule'],
  'client-eventbridge#PutEventsCommand': ['events:PutEvents'],
  'client-sns#PublishCommand': ['sns:Publish'],
};

/** The item kinds of a transaction and the action each needs. */
export const TRANSACTION_ITEM_ACTIONS: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
};

/**
 * Exports that make a request and so must be mapped: commands, paginators, waiters, `Upload`, and
 * `DynamoDBDocument` (its methods send commands).
 */
export const isCallingExport = (name: string): boolean =>
  /Command$/.test(name) ||
  /^paginate[A-Z]/.test(name) ||
  /^waitUntil[A-Z]/.test(name) ||
  name === 'Upload' ||
  name === 'DynamoDBDocument';
