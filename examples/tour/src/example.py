"""A small processor, the target of the tour's structure and line edits."""


class Processor:
    def __init__(self, factor):
        self.factor = factor

    def process_data(self, items):
        result = []
        for item in items:
            result.append(item * self.factor)
        return result


def main():
    print(Processor(2).process_data([1, 2, 3]))
