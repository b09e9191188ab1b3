import { DriverLocations } from './driver-locations';
import { createReceiver } from './receiver';

const secret = process.env.WEBHOOK_SECRET;
if (!secret?.startsWith('whsec_')) {
  console.error('Set WEBHOOK_SECRET to the endpoint secret (whsec_…) shown when the endpoint was created.');
  process.exit(1);
}
const port = Number(process.env.PORT ?? 4000);
const drivers = process.env.DRIVERS?.split(',').filter(Boolean);

const { server } = createReceiver({
  secret,
  path: process.env.WEBHOOK_PATH ?? '/webhooks',
  locations: new DriverLocations(drivers?.length ? drivers : undefined),
  onEvent: (event) => {
    // Your processing: update an order board, notify a customer, …
    console.log(JSON.stringify({ level: 'info', message: 'event', event: event.event, id: event.data.id }));
  },
});
server.listen(port, () => console.log(`Receiving Wharf webhooks on http://localhost:${port}/webhooks`));
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => server.close(() => process.exit(0)));
