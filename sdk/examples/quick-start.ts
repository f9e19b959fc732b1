import { createClient } from '@messaging-dynadata-api/sdk';

const client = createClient({
  baseUrl: process.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
  credential: { apiKey: process.env.API_KEY ?? '' },
});

const { company } = await client.self.get();
console.log(`company: ${company.name}`);
const contacts = client.dynadata.items('contacts');
for (const name of ['Ada Lovelace', 'Grace Hopper', 'Alan Turing']) await contacts.create({ name });
for await (const contact of contacts.list.all({ limit: 2 })) console.log(`contact: ${contact.name}`); // 2 a page
