#!/usr/bin/env python3
"""Trains lab 10's Fashion-MNIST network with PyTorch and writes its weights file.

    python3 scripts/train-cnn.py [--data data/fashion-mnist] [--epochs 8] [--seed 10]
        [--out grader/labs/10-cnn-layer/weights/fashion_cnn.bin]

The network is exactly the one grader/labs/10-cnn-layer/network.h runs on the GPU:

    input  [N][1][28][28]   pixels / 255
    conv1  1 -> 12 maps, 5 x 5, no bias   -> [N][12][24][24]
    ReLU, 2 x 2 max pooling               -> [N][12][12][12]
    conv2  12 -> 24 maps, 5 x 5, no bias  -> [N][24][8][8]
    ReLU, 2 x 2 max pooling               -> [N][24][4][4], flattened in that order to 384
    fc     384 -> 10, with bias           -> logits; the class is the largest

Data: the idx files of Debian's dataset-fashion-mnist (scripts/fetch-data fashion-mnist puts them
in data/fashion-mnist), read here with gzip and numpy, no torchvision. Training: Adam, seeded,
deterministic algorithms, TF32 off (so the test accuracy printed at the end is the FP32 one the
CUDA network reproduces, up to summation order). The weights file format is documented in
grader/labs/10-cnn-layer/weights_file.h and docs/labs/10-cnn-layer.md; the accuracy measured on
the 10000 test images is recorded in it. Put the printed accuracy in network.h
(kReferenceAccuracy) and in the docs page after running the GPU check.
"""
import argparse
import gzip
import os
import random
import struct
import sys

import numpy as np

# Deterministic cuBLAS (torch.use_deterministic_algorithms); read when CUDA starts.
os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit("train-cnn.py: PyTorch is needed (pip install torch)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def read_idx(path, magic, dims):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    header = 4 + 4 * dims
    if len(data) < header:
        sys.exit(f"{path}: file too short for an idx header")
    got_magic, *shape = struct.unpack(">" + "I" * (1 + dims), data[:header])
    if got_magic != magic:
        sys.exit(f"{path}: magic 0x{got_magic:08x}, expected 0x{magic:08x}")
    count = int(np.prod(shape))
    if len(data) != header + count:
        sys.exit(f"{path}: {len(data)} bytes, expected {header + count}")
    return np.frombuffer(data, dtype=np.uint8, offset=header).reshape(shape)


def load(data_dir, split):
    images = read_idx(os.path.join(data_dir, f"{split}-images-idx3-ubyte.gz"), 0x803, 3)
    labels = read_idx(os.path.join(data_dir, f"{split}-labels-idx1-ubyte.gz"), 0x801, 1)
    if images.shape[1:] != (28, 28) or len(images) != len(labels):
        sys.exit(f"{data_dir}: {split} images {images.shape} and labels {labels.shape} disagree")
    x = torch.from_numpy(images.astype(np.float32) / 255.0).unsqueeze(1)  # [N][1][28][28]
    y = torch.from_numpy(labels.astype(np.int64))
    return x, y


class FashionCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 12, 5, bias=False)
        self.conv2 = nn.Conv2d(12, 24, 5, bias=False)
        self.fc = nn.Linear(24 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


def accuracy(model, x, y, device):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), 1000):
            logits = model(x[i:i + 1000].to(device))
            correct += (logits.argmax(1).cpu() == y[i:i + 1000]).sum().item()
    return 100.0 * correct / len(x)


def write_weights(path, model, test_accuracy):
    tensors = [("conv1.weight", model.conv1.weight), ("conv2.weight", model.conv2.weight),
               ("fc.weight", model.fc.weight), ("fc.bias", model.fc.bias)]
    out = bytearray(b"CUDALABW")
    out += struct.pack("<I", 1)
    out += struct.pack("<f", test_accuracy)
    out += struct.pack("<I", len(tensors))
    for name, t in tensors:
        values = t.detach().cpu().contiguous().numpy().astype("<f4")
        out += struct.pack("<I", len(name)) + name.encode("ascii")
        out += struct.pack("<I", values.ndim) + struct.pack("<" + "I" * values.ndim, *values.shape)
        out += values.tobytes()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=os.path.join(ROOT, "data", "fashion-mnist"))
    parser.add_argument("--out", default=os.path.join(
        ROOT, "grader", "labs", "10-cnn-layer", "weights", "fashion_cnn.bin"))
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=10)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = parser.parse_args()

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.backends.cudnn.benchmark = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False

    train_x, train_y = load(args.data, "train")
    test_x, test_y = load(args.data, "t10k")
    device = torch.device(args.device)
    model = FashionCnn().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    generator = torch.Generator().manual_seed(args.seed)
    print(f"training on {device}: {len(train_x)} images, {args.epochs} epochs, batch {args.batch}")
    for epoch in range(args.epochs):
        model.train()
        order = torch.randperm(len(train_x), generator=generator)
        total = 0.0
        for i in range(0, len(order), args.batch):
            idx = order[i:i + args.batch]
            xb, yb = train_x[idx].to(device), train_y[idx].to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch + 1}: loss {total / len(order):.4f}, "
              f"test accuracy {accuracy(model, test_x, test_y, device):.2f}%")
    test_accuracy = accuracy(model, test_x, test_y, device)
    size = write_weights(args.out, model, test_accuracy)
    print(f"wrote {args.out} ({size} bytes)")
    print(f"test accuracy: {test_accuracy:.2f}% ({round(test_accuracy * len(test_x) / 100)} of "
          f"{len(test_x)})")


if __name__ == "__main__":
    main()
