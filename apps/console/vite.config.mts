// The web console: `npm run build` writes it to dist/apps/console, which the gateway serves at /console.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: '../../dist/apps/console',
    emptyOutDir: true,
    // The manifest tells the gateway the directory holds a build (not the sources' index.html).
    manifest: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { proxy: { '/api': 'http://localhost:1885' } },
});
