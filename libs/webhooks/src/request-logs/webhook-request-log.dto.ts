/** Request logs are written by the delivery pipeline only: no field is writable through the API. */
export class WebhookRequestLogDto {}
