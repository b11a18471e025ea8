// Integration and e2e tests start processes and talk to real MariaDB/NATS: give them time.
jest.setTimeout(120000);
