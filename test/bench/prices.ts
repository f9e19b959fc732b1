/**
 * AWS list prices used by `npm run bench -- cost`: us-east-1, on-demand, first pricing tier, USD, recorded on
 * the date below from the pricing page named beside each. They change: re-check the pages before quoting a
 * figure, and update the date with the numbers.
 */
export const PRICES_RECORDED_ON = '2026-11-25';

export const PRICES = {
  /** https://aws.amazon.com/waf/pricing/ (requests inspected by a web ACL, up to 1,500 WCUs; the web ACL's $5 and each rule's $1 a month are fixed). */
  wafPerMillionRequests: 0.6,
  /** https://aws.amazon.com/api-gateway/pricing/ (REST APIs, first 333 million requests a month). */
  apiGatewayRestPerMillionRequests: 3.5,
  /** https://aws.amazon.com/lambda/pricing/ (requests, any architecture). */
  lambdaPerMillionRequests: 0.2,
  /** https://aws.amazon.com/lambda/pricing/ (Arm, first 6 billion GB-seconds a month). */
  lambdaArmPerGbSecond: 0.0000133334,
  /** https://aws.amazon.com/lambda/pricing/ (x86, first 6 billion GB-seconds a month): the ffmpeg function. */
  lambdaX86PerGbSecond: 0.0000166667,
  /** https://aws.amazon.com/dynamodb/pricing/on-demand/ (standard table class). */
  dynamodbPerMillionWriteUnits: 0.625,
  dynamodbPerMillionReadUnits: 0.125,
  /** https://aws.amazon.com/step-functions/pricing/ (Standard workflows). */
  stepFunctionsPerThousandTransitions: 0.025,
  /** https://aws.amazon.com/step-functions/pricing/ (Express workflows: requests; duration, first 1,000 GB-hours, 64 MB per 100 ms). */
  stepFunctionsExpressPerMillionRequests: 1,
  stepFunctionsExpressPerGbSecond: 0.00001667,
  /** https://aws.amazon.com/sqs/pricing/ (standard queues, per 64 KB request, after the first million a month). */
  sqsStandardPerMillionRequests: 0.4,
  /** https://aws.amazon.com/sqs/pricing/ (FIFO queues, per 64 KB request, after the first million a month). */
  sqsFifoPerMillionRequests: 0.5,
  /** https://aws.amazon.com/s3/pricing/ (S3 Standard: PUT, COPY, POST, LIST; GET and the rest). */
  s3PerThousandPuts: 0.005,
  s3PerThousandGets: 0.0004,
  /** https://aws.amazon.com/polly/pricing/ (standard voices). */
  pollyStandardPerMillionCharacters: 4,
  /** https://aws.amazon.com/transcribe/pricing/ (batch, tier 1; billed per second, 15 s minimum). */
  transcribePerMinute: 0.024,
  /** https://aws.amazon.com/mediaconvert/pricing/ (Basic tier, per normalized output minute, 10 s minimum). */
  mediaConvertBasicPerMinute: 0.0075,
  /** https://aws.amazon.com/cloudwatch/pricing/ (Logs, Standard class ingestion). */
  cloudWatchLogsPerGbIngested: 0.5,
  /** https://aws.amazon.com/xray/pricing/ (traces recorded; traces retrieved or scanned, each counted once). */
  xrayPerMillionTracesRecorded: 5,
  xrayPerMillionTracesRetrieved: 0.5,
  /** https://aws.amazon.com/kms/pricing/ (symmetric requests: $0.03 per 10,000). */
  kmsPerMillionRequests: 3,
} as const;
