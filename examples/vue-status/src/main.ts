import { createRunlight } from '@runlight/vue';
import { createApp } from 'vue';
import App from './App.vue';

createApp(App)
  .use(createRunlight({ baseUrl: '/api' }))
  .mount('#app');
