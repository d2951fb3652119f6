def process_data(self, items):
        return [item * self.factor for item in items]